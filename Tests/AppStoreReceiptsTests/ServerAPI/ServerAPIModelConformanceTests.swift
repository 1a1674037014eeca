import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// Apple's library model fixtures (conformance/server-api/models) read by the response types and the
/// answer classifier: what Apple's real bodies look like must decode, and its error bodies must lead to
/// the right next step (hop, retry, verdict).
@Suite struct ServerAPIModelConformanceTests {
    static func model(_ name: String) throws -> Data { try Conformance.file("server-api/models/" + name) }

    static func reply(_ status: Int, _ body: Data, headers: [String: String] = [:]) -> HTTPExchangeResult {
        .response(HTTPReply(statusCode: status, headers: headers, body: body))
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func transactionHistoryResponseDecodes() throws {
        let page = try ServerAPIHistoryPage(try Self.model("transactionHistoryResponse.json"))
        #expect(page.revision == "revision_output")
        #expect(page.hasMore)
        #expect(page.bundleID == "com.example")
        #expect(page.environment == "LocalTesting")
        #expect(page.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func getAllSubscriptionStatusesResponseDecodesEveryGroup() throws {
        let body = try ServerAPIStatusesBody(try Self.model("getAllSubscriptionStatusesResponse.json"))
        #expect(body.environment == "LocalTesting")
        #expect(body.lastTransactions.map(\.status) == [1, 5, 2])
        #expect(body.lastTransactions.map(\.originalTransactionID) == ["3749183", "5314314134", "3413453"])
        #expect(
            body.lastTransactions.map(\.signedTransactionInfo) == [
                "signed_transaction_one", "signed_transaction_two", "signed_transaction_three",
            ])
        #expect(body.lastTransactions.last?.signedRenewalInfo == "signed_renewal_three")
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func anUnknownErrorCodeIsTransient() throws {
        let body = try Self.model("apiUnknownError.json")
        #expect(ServerAPIAnswer.errorCode(body) == 9_990_000)
        let answer = ServerAPIAnswer.classify(Self.reply(400, body), now: Date())
        guard case .retry(let reason, let after) = answer else {
            Issue.record("9990000 must be retried, not taken as a verdict: \(answer)")
            return
        }
        #expect(reason == .httpStatus(400, errorCode: 9_990_000))
        #expect("\(reason)" == "HTTP 400 (errorCode 9990000)")
        #expect(after == nil)
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func tooManyRequestsWaitsUntilRetryAfterInUnixMilliseconds() throws {
        let body = try Self.model("apiTooManyRequestsException.json")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let answer = ServerAPIAnswer.classify(
            Self.reply(429, body, headers: ["Retry-After": "1700000002500"]), now: now)
        #expect(answer == .retry(.httpStatus(429, errorCode: 4_290_000), after: .milliseconds(2_500)))
        if case .retry(let cause, _) = answer { #expect("\(cause)" == "HTTP 429 (errorCode 4290000)") }
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func transactionIdNotFoundSendsTheRequestToTheOtherEnvironment() throws {
        let answer = ServerAPIAnswer.classify(
            Self.reply(404, try Self.model("transactionIdNotFoundError.json")), now: Date())
        #expect(answer == .notInThisEnvironment(code: 4_040_010))
    }

    /// Not from the corpus: the classes CONTRACT §9 names, as Apple's bodies carry them.
    @Test(arguments: [
        (401, "", ServerAPIAnswer.unauthorized),
        (400, #"{"errorCode":4000002,"errorMessage":"Invalid app identifier."}"#, .configuration("")),
        (404, #"{"errorCode":4040005}"#, .notInThisEnvironment(code: 4_040_005)),
        (404, #"{"errorCode":4040001}"#, .gone(code: 4_040_001)),
        (404, #"{"errorCode":4040003}"#, .gone(code: 4_040_003)),
        (404, #"{"errorCode":4040019}"#, .gone(code: 4_040_019)),
        (404, #"{"errorCode":4040006}"#, .retry(.httpStatus(404, errorCode: 4_040_006), after: nil)),
        (400, #"{"errorCode":4000006}"#, .invalidID(code: 4_000_006)),
        (400, #"{"errorCode":4000008}"#, .invalidID(code: 4_000_008)),
        (400, #"{"errorCode":4000005}"#, .restartWalk(code: 4_000_005)),
        (400, #"{"errorCode":4000014}"#, .restartWalk(code: 4_000_014)),
        (400, #"{"errorCode":4000017}"#, .restartWalk(code: 4_000_017)),
        (400, #"{"errorCode":4000000}"#, .refused("")),
        (502, "<html>Bad Gateway</html>", .retry(.httpStatus(502, errorCode: nil), after: nil)),
        (500, #"{"errorCode":5000001}"#, .retry(.httpStatus(500, errorCode: 5_000_001), after: nil)),
        (500, #"{"errorCode":5000000}"#, .retryOnce(.httpStatus(500, errorCode: 5_000_000))),
    ])
    func statusAndErrorCodeDecideTheNextStep(_ status: Int, _ body: String, _ expected: ServerAPIAnswer) {
        let answer = ServerAPIAnswer.classify(Self.reply(status, Data(body.utf8)), now: Date())
        switch (answer, expected) {
        case (.configuration, .configuration), (.refused, .refused): break
        default: #expect(answer == expected)
        }
    }
}
