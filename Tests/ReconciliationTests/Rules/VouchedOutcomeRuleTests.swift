import AppStoreReceipts
import Testing

@testable import Reconciliation

/// The order every source judges an answer Apple vouches for in (`ReceiptOutcomeRule.vouched`): another
/// app's first, whatever its environment, then the other environment's, else valid; and the App Store
/// Server API's histories judged by it (`classifyHistory`).
@Suite struct VouchedOutcomeRuleTests {
    static let context = ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: ["com.app"])

    @Test(
        arguments: [
            // (bundle id, misrouted, outcome, flag)
            ("com.other", true, ReceiptOutcome.invalid, FlagKind?.some(.bundleMismatch)),
            ("com.other", false, .invalid, .bundleMismatch),
            ("com.app", true, .misrouted, .sandboxInProduction),
            (nil, true, .misrouted, .sandboxInProduction),  // no bundle id is not checked
            ("com.app", false, .valid, nil),
        ] as [(String?, Bool, ReceiptOutcome, FlagKind?)])
    func anotherAppsAnswerIsRefusedBeforeItsEnvironmentIsRead(
        bundleID: String?, misrouted: Bool, outcome: ReceiptOutcome, flag: FlagKind?
    ) {
        let classification = ReceiptOutcomeRule.vouched(
            bundleID: bundleID, misrouted: misrouted, environment: .sandbox, appleStatus: 0, context: Self.context,
            misroutedDetail: { "misrouted" }, validDetail: { "valid" })
        #expect(classification.outcome == outcome)
        #expect(classification.outcomeFlag == flag)
        #expect(classification.appleStatus == 0)
        #expect(classification.environment == .sandbox)
    }

    @Test(
        arguments: [
            // (found in, first transaction's bundle id, outcome, flag, detail)
            (
                AppStoreEnvironment.production, "com.app", ReceiptOutcome.valid, FlagKind?.none,
                "App Store Server API: 3 transaction(s) in production"
            ),
            (
                .sandbox, "com.app", .misrouted, .sandboxInProduction,
                "found by the App Store Server API in sandbox only; this database serves production"
            ),
            (
                .sandbox, "com.other", .invalid, .bundleMismatch,
                "bundle id com.other is not accepted (APPLE_BUNDLE_IDS: com.app)"
            ),
        ] as [(AppStoreEnvironment, String?, ReceiptOutcome, FlagKind?, String)])
    func aHistoryFound(
        environment: AppStoreEnvironment, bundleID: String?, outcome: ReceiptOutcome, flag: FlagKind?, detail: String
    ) {
        let classification = ReceiptOutcomeRule.classifyHistory(
            environment: environment, bundleID: bundleID, transactions: 3, context: Self.context)
        #expect(
            classification
                == ReceiptClassification(outcome: outcome, outcomeFlag: flag, environment: environment, detail: detail))
    }
}
