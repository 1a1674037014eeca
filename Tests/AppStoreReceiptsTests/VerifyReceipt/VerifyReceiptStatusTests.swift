import AppStoreReceipts
import Testing

@Suite struct VerifyReceiptStatusTests {
    @Test("every documented code maps to a named case and back", arguments: VerifyReceiptStatus.documented)
    func documentedRoundTrip(_ status: VerifyReceiptStatus) {
        #expect(VerifyReceiptStatus(rawValue: status.rawValue) == status)
        #expect(status.isDocumented)
        if case .unknown = status { Issue.record("\(status.rawValue) is documented") }
    }

    @Test("each documented code explains itself in a few words")
    func summaries() {
        let summaries = VerifyReceiptStatus.documented.filter { !(21_100...21_199).contains($0.rawValue) }.map(
            \.summary)
        #expect(Set(summaries).count == summaries.count)
        #expect(summaries.allSatisfy { !$0.isEmpty && $0.count <= 70 })
        #expect(
            VerifyReceiptStatus.sandboxReceiptSentToProduction.description
                == "21007 (sandbox receipt sent to the production environment)")
        #expect(
            VerifyReceiptStatus(rawValue: 21_004).description == "21004 (shared secret does not match the account's)")
    }

    @Test("21100...21199 is one family, its code kept", arguments: [21_100, 21_150, 21_199])
    func internalErrors(_ code: Int) {
        #expect(VerifyReceiptStatus(rawValue: code) == .internalError(code))
        #expect(VerifyReceiptStatus(rawValue: code).rule == .retryUnlessMarkedNotRetryable)
    }

    @Test(
        "undocumented codes are unknown, keep their code, and get no verdict",
        arguments: [-1, 1, 2, 21_011, 21_099, 21_200, 99_999])
    func unknown(_ code: Int) {
        let status = VerifyReceiptStatus(rawValue: code)
        #expect(status == .unknown(code))
        #expect(status.rawValue == code)
        #expect(!status.isDocumented)
        #expect(status.rule == .unverified)
    }

    @Test("equality is by code, however the value was built")
    func equalityByCode() {
        #expect(VerifyReceiptStatus.unknown(0) == .valid)
        #expect(Set([VerifyReceiptStatus.unknown(21_002), .malformedReceiptData]).count == 1)
        #expect(VerifyReceiptStatus.internalError(21_100) != .internalError(21_101))
    }

    @Test("21001 is documented as no longer sent and treated like an unknown code")
    func noLongerSent() {
        #expect(VerifyReceiptStatus(rawValue: 21_001) == .noLongerSent)
        #expect(VerifyReceiptStatus.noLongerSent.rule == .unverified)
    }
}
