import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

private typealias W = World

/// docs/reconciliation-rules.md, "Evidence": each correction and flag the rules plan carries the facts
/// its rule used, named by the rule's word.
@Suite struct EvidenceRuleTests {
    /// A refund revoke names the refunded purchase: its stored row, ids, product, the revocation whole
    /// (date, reason, type, share) and the instant Apple's word speaks for, as of `--as-of`.
    @Test func aRefundRevokeNamesTheRefundedPurchaseAndItsRow() throws {
        var refunded = W.subscription(
            "2000", bought: -10, expires: 20, refunded: -2, revocationType: "REFUND_PRORATED", percentage: 25_000)
        refunded.evidenceDate = W.day(-0.01)
        refunded.environment = .production
        let scenario = PlannerScenario(
            name: "refund", receipts: [W.receipt(7, [W.subscription("1999", bought: -40, expires: -10), refunded])],
            rows: [W.row(expires: 20)], corrections: [])
        let (_, corrections, flags) = scenario.reconcile()
        let correction = try #require(corrections.first)
        #expect(correction.reason == .refund && correction.action == .revoke)
        let evidence = try #require(correction.evidence)
        #expect(evidence.rule == "refund" && evidence.entitlement == "premium" && evidence.asOf == W.asOf)
        let purchase = try #require(evidence.purchases.first)
        #expect(evidence.purchases.count == 1)
        #expect(purchase.receiptID == 7 && purchase.transactionID == "2000" && purchase.originalTransactionID == "1000")
        #expect(purchase.productID == W.monthly && purchase.environment == .production)
        #expect(purchase.revocationDate == W.day(-2) && purchase.revocationReason == 0)
        #expect(purchase.revocationType == "REFUND_PRORATED" && purchase.revocationPercentage?.description == "25")
        #expect(purchase.expiresDate == W.day(20) && purchase.reportedAt == W.day(-0.01))
        #expect(evidence.receipts.map(\.receiptID) == [7] && evidence.receipts.first?.outcome == .valid)

        let flag = try #require(flags.first { $0.kind == .refunded })
        #expect(flag.evidence?.rule == "refunded")
        #expect(flag.evidence?.purchases.map(\.transactionID) == ["2000"])
        #expect(flag.evidence?.purchases.first?.revocationDate == W.day(-2))
    }

    /// A refund Apple dates after `--as-of` has not happened yet: no revocation in the evidence.
    @Test func aRevocationAfterAsOfIsLeftOut() {
        let later = W.subscription("2000", bought: -10, expires: -1, refunded: 3)
        let fact = Evidence.PurchaseFact(later, receiptID: 1, asOf: W.asOf)
        #expect(fact.revocationDate == nil && fact.revocationPercentage == nil && fact.expiresDate == W.day(-1))
    }

    /// An expiry names the purchase whose end ran out.
    @Test func anExpiryNamesThePurchaseThatEndedLast() throws {
        let scenario = PlannerScenario(
            name: "expired",
            receipts: [
                W.receipt(
                    3,
                    [
                        W.subscription("3001", bought: -70, expires: -40),
                        W.subscription("3002", bought: -40, expires: -10),
                    ])
            ],
            rows: [W.row(expires: 20)], corrections: [])
        let correction = try #require(scenario.reconcile().corrections.first)
        #expect(correction.reason == .expired)
        let evidence = try #require(correction.evidence)
        #expect(evidence.rule == "expired")
        #expect(evidence.purchases.map(\.transactionID) == ["3002"])
        #expect(evidence.purchases.first?.expiresDate == W.day(-10))
        #expect(evidence.receipts.map(\.receiptID) == [3])
    }

    /// Only an invalid row named the entitlement: its answer (Apple's status or errorCode) is the proof.
    @Test func anInvalidReceiptRevokeNamesTheRowAndApplesAnswer() throws {
        let invalid = UserReceipt(
            receiptID: 9,
            classification: ReceiptClassification(
                outcome: .invalid, outcomeFlag: .invalidReceipt, detail: "Apple refuses transaction id 4101",
                errorCode: 4_000_006),
            purchases: [W.subscription("4101", bought: -10, expires: 20)], source: .serverAPI)
        let scenario = PlannerScenario(
            name: "invalid", receipts: [invalid, W.receipt(10, [W.purchase("5", product: W.coins, bought: -3)])],
            rows: [W.row(expires: 20)], corrections: [])
        let (_, corrections, flags) = scenario.reconcile()
        let evidence = try #require(corrections.first?.evidence)
        #expect(evidence.rule == "invalid_receipt" && evidence.purchases.isEmpty)
        let receipt = try #require(evidence.receipts.first)
        #expect(evidence.receipts.count == 1)
        #expect(receipt.receiptID == 9 && receipt.outcome == .invalid && receipt.errorCode == 4_000_006)
        #expect(receipt.source == .serverAPI && receipt.detail == "Apple refuses transaction id 4101")

        let flag = try #require(flags.first { $0.kind == .invalidReceipt })
        #expect(flag.evidence?.rule == "invalid_receipt")
        #expect(flag.evidence?.receipts.map(\.errorCode) == [4_000_006])
    }

    /// `no_purchase`: every row Apple answered for, with the products it holds, none of the entitlement's.
    @Test func noPurchaseNamesEveryRowAppleAnsweredFor() throws {
        let scenario = PlannerScenario(
            name: "no purchase",
            receipts: [
                W.receipt(12, [W.purchase("6", product: W.coins, bought: -3)]),
                W.receipt(11, .valid, []),
            ],
            rows: [W.row(expires: 20)], corrections: [])
        let evidence = try #require(scenario.reconcile().corrections.first?.evidence)
        #expect(evidence.rule == "no_purchase")
        #expect(evidence.receipts.map(\.receiptID) == [11, 12])
        #expect(evidence.receipts.map(\.productIDs) == [[], [W.coins]])
    }

    /// A grace period names the subscription and the grace period's end.
    @Test func aGracePeriodNamesItsEnd() throws {
        let scenario = PlannerScenario(
            name: "grace",
            receipts: [
                W.receipt([W.subscription("7001", bought: -31, expires: -1)], renewal: [W.gracePeriod(until: 5)])
            ],
            rows: [W.row(expires: -1)], corrections: [])
        let correction = try #require(scenario.reconcile().corrections.first)
        #expect(correction.reason == .gracePeriod)
        #expect(correction.evidence?.gracePeriodExpiresDate == W.day(5))
        #expect(correction.evidence?.purchases.map(\.transactionID) == ["7001"])
    }

    /// Every flag of a row carries the row with Apple's answer; `unverified` says which kind.
    @Test func anUnverifiedFlagSaysItsKindAndCause() throws {
        let receipt = UserReceipt(
            receiptID: 4,
            classification: .unverified(.permanent, detail: "Apple no longer finds the account", errorCode: 4_040_001))
        let flag = try #require(FlagRule.receiptFlags(receipt, catalog: W.catalog, asOf: W.asOf).first)
        let fact = try #require(flag.evidence?.receipts.first)
        #expect(flag.evidence?.rule == "unverified")
        #expect(fact.unverified == .permanent && fact.errorCode == 4_040_001)
        #expect(fact.detail?.hasPrefix("Apple no longer finds the account") == true)
    }
}
