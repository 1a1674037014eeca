import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

/// One receipt's verification, and the outcome and flag `recon_results` / `recon_flags` must show.
struct OutcomeCase: Sendable, CustomTestStringConvertible {
    var name: String
    var verification: ReceiptVerification
    var local: LocalReceiptCheck = .decodes
    var served: AppStoreEnvironment = .production
    var bundleIDs: Set<String> = ["com.app"]
    var outcome: ReceiptOutcome
    var flag: FlagKind?

    var testDescription: String { name }
}

private func answer(
    _ status: Int,
    environment: String? = "Production",
    bundleID: String? = "com.app",
    format: VerifyReceiptDecodedReceipt.Format = .appReceipt
) -> VerifyReceiptResponse {
    VerifyReceiptResponse(
        rawStatus: status, rawEnvironment: environment,
        receipt: VerifyReceiptDecodedReceipt(format: format, bundleID: bundleID))
}

private func valid(
    _ status: Int = 0, from endpoint: AppStoreEnvironment = .production, environment: String? = "Production",
    bundleID: String? = "com.app"
) -> ReceiptVerification {
    ReceiptVerification(
        verdict: .valid, response: answer(status, environment: environment, bundleID: bundleID), answeredBy: endpoint)
}

private func failed(_ verdict: VerificationVerdict, status: Int?) -> ReceiptVerification {
    ReceiptVerification(
        verdict: verdict, response: status.map { VerifyReceiptResponse(rawStatus: $0) }, answeredBy: .production,
        appleStatus: status)
}

/// docs/reconciliation-rules.md, "Receipt outcomes": one row per rule.
private let cases: [OutcomeCase] = [
    OutcomeCase(name: "status 0 from the served environment -> valid", verification: valid(), outcome: .valid),
    OutcomeCase(
        name: "21006 iOS 6 expired subscription -> valid",
        verification: ReceiptVerification(
            verdict: .valid, response: answer(21006, environment: nil, format: .transactionReceipt),
            answeredBy: .production),
        outcome: .valid),
    OutcomeCase(
        name: "sandbox receipt answered after the 21007 hop, production database -> misrouted, sandbox_in_production",
        verification: valid(from: .sandbox, environment: "Sandbox"),
        outcome: .misrouted, flag: .sandboxInProduction),
    OutcomeCase(
        name: "answer's environment is Sandbox although production answered -> misrouted",
        verification: valid(from: .production, environment: "Sandbox"),
        outcome: .misrouted, flag: .sandboxInProduction),
    OutcomeCase(
        name: "production receipt answered after the 21008 hop, sandbox database -> misrouted, production_in_sandbox",
        verification: valid(from: .production, environment: "Production"),
        served: .sandbox,
        outcome: .misrouted, flag: .productionInSandbox),
    OutcomeCase(
        name: "sandbox receipt in a sandbox database -> valid",
        verification: valid(from: .sandbox, environment: "Sandbox"),
        served: .sandbox,
        outcome: .valid),
    OutcomeCase(
        name: "bundle mismatch -> invalid, flag bundle_mismatch",
        verification: valid(bundleID: "com.someone.else"),
        outcome: .invalid, flag: .bundleMismatch),
    OutcomeCase(
        name: "bundle mismatch wins over misrouted",
        verification: valid(from: .sandbox, environment: "Sandbox", bundleID: "com.someone.else"),
        outcome: .invalid, flag: .bundleMismatch),
    OutcomeCase(
        name: "no APPLE_BUNDLE_IDS -> any bundle id is accepted",
        verification: valid(bundleID: "com.someone.else"),
        bundleIDs: [],
        outcome: .valid),
    OutcomeCase(
        name: "one of several accepted bundle ids -> valid",
        verification: valid(bundleID: "com.app.lite"),
        bundleIDs: ["com.app", "com.app.lite"],
        outcome: .valid),
    OutcomeCase(
        name: "answer without a bundle id is not judged -> valid",
        verification: valid(bundleID: nil),
        outcome: .valid),
    OutcomeCase(
        name: "21003 -> invalid, invalid_receipt",
        verification: failed(.invalid(.receiptNotAuthenticated), status: 21003),
        outcome: .invalid, flag: .invalidReceipt),
    OutcomeCase(
        name: "21010 -> invalid, invalid_receipt",
        verification: failed(.invalid(.accountNotFound), status: 21010),
        outcome: .invalid, flag: .invalidReceipt),
    OutcomeCase(
        name: "persistent 21002 + local decode ok -> unverified",
        verification: failed(.persistentMalformedReceiptData, status: 21002),
        local: .decodes,
        outcome: .unverified, flag: .unverified),
    OutcomeCase(
        name: "persistent 21002 + local decode fails -> invalid",
        verification: failed(.persistentMalformedReceiptData, status: 21002),
        local: .doesNotDecode,
        outcome: .invalid, flag: .invalidReceipt),
    OutcomeCase(
        name: "21100-21199 marked not retryable -> unverified",
        verification: failed(.unverified(.appleInternalErrorNotRetryable(21_150)), status: 21150),
        outcome: .unverified, flag: .unverified),
    OutcomeCase(
        name: "attempts exhausted on HTTP 503 -> unverified",
        verification: failed(.unverified(.retriesExhausted(.httpStatus(503))), status: nil),
        outcome: .unverified, flag: .unverified),
    OutcomeCase(
        name: "unknown status -> unverified",
        verification: failed(.unverified(.unknownStatus(21_001)), status: 21001),
        outcome: .unverified, flag: .unverified),
    OutcomeCase(
        name: "Xcode receipt -> invalid, whatever Apple would say",
        verification: valid(),
        local: .xcodeReceipt,
        outcome: .invalid, flag: .invalidReceipt),
    OutcomeCase(
        name: "empty receipt data -> invalid",
        verification: failed(.unverified(.unknownStatus(-1)), status: nil),
        local: .empty,
        outcome: .invalid, flag: .invalidReceipt),
    OutcomeCase(
        name: "receipt data that is not base64 -> invalid",
        verification: failed(.unverified(.unknownStatus(-1)), status: nil),
        local: .notBase64,
        outcome: .invalid, flag: .invalidReceipt),
]

@Suite("Receipt outcomes (CONTRACT §4/§5)")
struct ReceiptOutcomeRuleTests {
    @Test(arguments: cases)
    func outcomeAndFlag(_ testCase: OutcomeCase) throws {
        let context = ReceiptOutcomeContext(servedEnvironment: testCase.served, acceptedBundleIDs: testCase.bundleIDs)
        let result = try ReceiptOutcomeRule.classify(testCase.verification, local: testCase.local, context: context)
        #expect(result.outcome == testCase.outcome)
        #expect(result.outcomeFlag == testCase.flag)
        #expect(!result.detail.isEmpty && !result.detail.contains("\n"))
    }

    @Test(
        "data that is not a receipt, and Xcode receipts, are decided before Apple is asked",
        arguments: LocalReceiptCheck.allCases)
    func localRuling(_ local: LocalReceiptCheck) {
        let ruling = ReceiptOutcomeRule.localRuling(local)
        switch local {
        case .empty, .notBase64, .xcodeReceipt: #expect(ruling?.outcome == .invalid && ruling?.appleStatus == nil)
        case .decodes, .doesNotDecode: #expect(ruling == nil)
        }
    }

    @Test(
        "21004 and 21000 abort the run instead of judging the receipt",
        arguments: [
            (VerificationVerdict.ConfigurationProblem.sharedSecretMismatch, 21004),
            (.badRequest, 21000),
        ])
    func configurationErrorsAbort(_ problem: VerificationVerdict.ConfigurationProblem, _ status: Int) {
        let verification = failed(.configurationError(problem), status: status)
        let context = ReceiptOutcomeContext(servedEnvironment: .production)
        #expect(throws: ConfigurationAbort(problem: problem, appleStatus: status)) {
            try ReceiptOutcomeRule.classify(verification, local: .decodes, context: context)
        }
    }

    @Test("the result keeps Apple's status and the environment Apple named")
    func resultCarriesStatusAndEnvironment() throws {
        let context = ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: ["com.app"])
        let result = try ReceiptOutcomeRule.classify(
            valid(from: .sandbox, environment: "Sandbox"), local: .decodes, context: context)
        #expect(result.appleStatus == 0)
        #expect(result.environment == .sandbox)
        #expect(result.detail == "status 0 from sandbox; this database serves production")
    }

    @Test("a bundle mismatch names the bundle id found and the accepted ones")
    func bundleMismatchDetail() throws {
        let context = ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: ["com.b", "com.a"])
        let result = try ReceiptOutcomeRule.classify(valid(bundleID: "com.evil"), local: .decodes, context: context)
        #expect(result.detail == "bundle id com.evil is not accepted (APPLE_BUNDLE_IDS: com.a, com.b)")
    }
}
