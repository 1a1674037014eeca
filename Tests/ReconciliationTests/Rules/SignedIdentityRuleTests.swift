import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

/// A verified StoreKit 2 row naming no app or no App Store environment is refused as Apple's
/// `SignedDataVerifier` refuses it (`signedIdentityRefusal`), never taken as the database's own.
struct SignedIdentityRuleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var format: SignedDataFormat
        var bundleID: String?
        var environment: SignedEnvironment?
        var accepted: Set<String> = ["com.app"]
        var outcome: ReceiptOutcome
        var flag: FlagKind?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a transaction naming both", format: .transaction, bundleID: "com.app", environment: .production,
            outcome: .valid),
        Case(
            name: "a transaction without bundleId", format: .transaction, bundleID: nil, environment: .production,
            outcome: .invalid, flag: .bundleMismatch),
        Case(
            name: "a transaction without bundleId and no bundle check configured", format: .transaction,
            bundleID: nil, environment: .production, accepted: [], outcome: .valid),
        Case(
            name: "a transaction without environment", format: .transaction, bundleID: "com.app", environment: nil,
            outcome: .invalid, flag: .invalidReceipt),
        Case(
            name: "a transaction of an unknown environment", format: .transaction, bundleID: "com.app",
            environment: SignedEnvironment(rawValue: "Staging"), outcome: .invalid, flag: .invalidReceipt),
        Case(
            name: "renewal info has no bundleId, and Apple checks none", format: .renewalInfo, bundleID: nil,
            environment: .production, outcome: .valid),
        Case(
            name: "renewal info without environment", format: .renewalInfo, bundleID: nil, environment: nil,
            outcome: .invalid, flag: .invalidReceipt),
        Case(
            name: "an app transaction without bundleId", format: .appTransaction, bundleID: nil,
            environment: .production, outcome: .invalid, flag: .bundleMismatch),
    ]

    @Test(arguments: cases)
    func aRowIsJudgedAsApplesVerifierJudgesIt(_ test: Case) {
        let context = ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: test.accepted)
        let evidence = SignedEvidence(
            format: test.format, bundleID: test.bundleID, environment: test.environment,
            signedDate: Date(timeIntervalSince1970: 1_790_000_000))
        let result = ReceiptOutcomeRule.classifySigned(SignedDataVerification(), evidence: evidence, context: context)
        #expect(result.outcome == test.outcome, "\(result.detail)")
        #expect(result.outcomeFlag == test.flag, "\(result.detail)")
    }

    /// A notification row whose nested transaction names no environment is not the served one's either.
    @Test func aCarriedTransactionWithoutEnvironmentIsRefused() {
        let context = ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: ["com.app"])
        var fields = Purchase.Fields(source: .signedRow)
        fields.transactionID = "1"
        let evidence = SignedEvidence(
            format: .notification, purchases: [Purchase(fields)], bundleID: "com.app", environment: .production)
        let result = ReceiptOutcomeRule.classifySigned(SignedDataVerification(), evidence: evidence, context: context)
        #expect(result.outcome == .invalid && result.outcomeFlag == .invalidReceipt, "\(result.detail)")
    }
}
