import AppStoreReceipts
import Foundation
import Testing

@testable import Reconciliation

/// `verify-user --explain`'s words for the rows the acceptance tests do not reach: a revert, a dry run, a
/// row written before evidence was kept, a grace period, `no_purchase`, and the end-of-run flags.
@Suite struct EvidenceTextTests {
    /// 2026-11-28T10:00:00Z.
    static let at = Date(timeIntervalSince1970: 1_795_860_000)

    static func correction(
        _ action: CorrectionAction, _ reason: CorrectionReason, after: Bool, expires: Date? = nil,
        evidence: Evidence?, applied: Bool = true, revertedRunID: Int64? = nil
    ) -> UserHistory.Correction {
        UserHistory.Correction(
            id: 1, runID: 7, runKind: reason == .reverted ? "revert" : "nightly", createdAt: at, applied: applied,
            record: CorrectionRecord(
                entitlement: "premium", action: action, reason: reason, beforeActive: !after, beforeExpiresAt: nil,
                afterActive: after, afterExpiresAt: expires, productID: "monthly", originalTransactionID: "100",
                evidence: evidence),
            revertedRunID: revertedRunID)
    }

    @Test func aRevertSaysWhichRunItRestored() {
        let text = EvidenceText.correction(
            Self.correction(
                .grant, .reverted, after: true, expires: Self.at.addingTimeInterval(86_400),
                evidence: Evidence(rule: "reverted"), revertedRunID: 5))
        #expect(
            text
                == "2026-11-28 10:00 UTC, run 7 (revert): access to premium was set back to active until "
                + "2026-11-29 10:00 UTC, restored by the revert of run 5.")
    }

    @Test func aDryRunAndARowWithoutEvidenceSaySo() {
        let text = EvidenceText.correction(
            Self.correction(.revoke, .expired, after: false, evidence: nil, applied: false))
        #expect(
            text
                == "2026-11-28 10:00 UTC, run 7 (nightly, dry run: not applied): access to premium would have been "
                + "removed (reason: expired; recorded before receipt-recon kept its evidence).")
    }

    @Test func aGracePeriodAndNoPurchaseNameTheirFacts() {
        var purchase = Evidence.PurchaseFact(source: .serverAPI)
        purchase.transactionID = "200"
        purchase.productID = "monthly"
        var grace = Evidence(rule: "grace_period", asOf: Self.at, entitlement: "premium")
        grace.purchases = [purchase]
        grace.gracePeriodExpiresDate = Self.at.addingTimeInterval(3 * 86_400)
        let kept = EvidenceText.correction(
            Self.correction(.extend, .gracePeriod, after: true, expires: grace.gracePeriodExpiresDate, evidence: grace))
        #expect(
            kept.contains(
                "was extended to 2026-12-01 10:00 UTC because Apple reports the subscription in its billing grace "
                    + "period until 2026-12-01 10:00 UTC (Apple is still retrying the payment; purchase 200 "
                    + "(product monthly))."), "\(kept)")

        var none = Evidence(rule: "no_purchase", asOf: Self.at, entitlement: "premium")
        var coins = Evidence.ReceiptFact(receiptID: 42, outcome: .valid, source: .verifyReceipt)
        coins.productIDs = ["coins"]
        coins.appleStatus = 0
        none.receipts = [coins]
        let removed = EvidenceText.correction(Self.correction(.revoke, .noPurchase, after: false, evidence: none))
        #expect(
            removed.contains(
                "because Apple reports no purchase that unlocks it: Apple answered for receipt 42 (valid, products "
                    + "coins), and none holds a product of premium."), "\(removed)")
    }

    @Test func theEndOfRunFlagsSayWhatTheyFound() {
        var shared = Evidence(rule: "shared_transaction", asOf: Self.at)
        shared.originalTransactionID = "900"
        shared.otherUsers = ["u-b", "u-c"]
        let sharedText = EvidenceText.flag(
            UserHistory.Flag(
                id: 1, receiptID: 3, kind: .sharedTransaction, detail: "", createdAt: Self.at, evidence: shared))
        #expect(
            sharedText
                == "Receipt 3: original transaction 900 is also on receipts of 2 other users (judged as of "
                + "2026-11-28 10:00 UTC).", "other users' ids are not read to the customer")

        var rows = Evidence(rule: "entitlement_without_receipt")
        rows.entitlementRows = [Evidence.EntitlementFact(entitlement: "premium")]
        let rowsText = EvidenceText.flag(
            UserHistory.Flag(
                id: 2, receiptID: nil, kind: .entitlementWithoutReceipt, detail: "", createdAt: Self.at, evidence: rows)
        )
        #expect(rowsText == "User: active premium without any receipt: nothing Apple said granted it.")
    }
}
