import AppStoreReceipts
import Foundation
import Testing

@testable import Reconciliation

/// Reports of one transaction by two of a user's rows are merged by the instant each speaks for
/// (`evidenceDate`: a signed row's `signedDate`, the instant Apple answered), not by row order
/// (CONTRACT §9, "Signed rows"; docs/reconciliation-rules.md).
@Suite struct FresherEvidenceTests {
    /// One report of lifetime purchase 77: its source, the instant it speaks for (days from `as_of`; nil:
    /// none) and what it says of the purchase.
    static func report(
        _ source: TransactionSource, at day: Double?, refunded: Double? = nil, expires: Double? = nil,
        upgraded: Bool? = nil, price: Int64? = nil, percentage: Int64? = nil
    ) -> Purchase {
        var fields = Purchase.Fields(source: source)
        fields.transactionID = "77"
        fields.originalTransactionID = "77"
        fields.productID = World.lifetime
        fields.purchaseDate = World.day(-90)
        fields.expiresDate = expires.map(World.day)
        fields.revocation = refunded.map {
            Revocation(
                date: World.day($0), type: percentage == nil ? nil : "REFUND_PRORATED", percentageMilliunits: percentage
            )
        }
        fields.isUpgraded = upgraded
        fields.price = price.map(CurrencyAmount.init(milliunits:))
        fields.currency = price == nil ? nil : "USD"
        fields.evidenceDate = day.map(World.day)
        return Purchase(fields)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let first: Purchase
        let second: Purchase
        /// The merged purchase's revocation day, expiry day and upgrade, as `refunded -4`, `expires +20`, `upgraded`.
        let stands: String
        var testDescription: String { name }
    }

    static func standing(_ purchase: Purchase) -> String {
        var words: [String] = []
        if let revocation = purchase.revocation { words.append("refunded \(World.relative(revocation.date))") }
        if let expires = purchase.expiresDate { words.append("expires \(World.relative(expires))") }
        if purchase.isUpgraded == true { words.append("upgraded") }
        return words.isEmpty ? "stands" : words.joined(separator: ", ")
    }

    static let cases: [Case] = [
        Case(
            name: "a stale signed row's refund does not outlive Apple's fresh answer without it (reversed)",
            first: report(.signedRow, at: -3, refunded: -4), second: report(.verifyReceipt, at: 0),
            stands: "stands"),
        Case(
            name: "the same whichever report comes first",
            first: report(.verifyReceipt, at: 0), second: report(.signedRow, at: -3, refunded: -4),
            stands: "stands"),
        Case(
            name: "a fresh refund outranks an older report without one",
            first: report(.signedRow, at: -10), second: report(.serverAPI, at: 0, refunded: -2),
            stands: "refunded -2d"),
        Case(
            name: "of two signed rows the later signed says it",
            first: report(.signedRow, at: -1), second: report(.signedRow, at: -5, refunded: -6),
            stands: "stands"),
        Case(
            name: "the fresher expiry wins, even the earlier one",
            first: report(.signedRow, at: -40, expires: 30), second: report(.serverAPI, at: 0, expires: 20),
            stands: "expires +20d"),
        Case(
            name: "the fresher report's absent upgrade wins",
            first: report(.signedRow, at: -5, upgraded: true), second: report(.serverAPI, at: 0),
            stands: "stands"),
        Case(
            name: "an undated answer of this run counts as now, above any signed row",
            first: report(.signedRow, at: -1, refunded: -2), second: report(.verifyReceipt, at: nil),
            stands: "stands"),
        Case(
            name: "an undated signed row counts as older than any dated report",
            first: report(.signedRow, at: nil), second: report(.signedRow, at: -30, refunded: -31),
            stands: "refunded -31d"),
        Case(
            name: "of two reports of one instant, the one carrying the refund wins (no reversal between them)",
            first: report(.signedRow, at: -3), second: report(.signedRow, at: -3, refunded: -4),
            stands: "refunded -4d"),
        Case(
            name: "two answers of this run: the refund either carries stands",
            first: report(.verifyReceipt, at: nil), second: report(.verifyReceipt, at: nil, refunded: -1),
            stands: "refunded -1d"),
        Case(
            name: "otherwise a tie goes to the first report (the newer row's)",
            first: report(.serverAPI, at: 0, expires: 30), second: report(.serverAPI, at: 0, expires: 20),
            stands: "expires +30d"),
    ]

    @Test(arguments: cases)
    func theFresherReportSaysWhetherThePurchaseStands(_ example: Case) {
        #expect(Self.standing(Purchase.merged(example.first, example.second)) == example.stands)
    }

    @Test func fieldsOnlyTheOlderReportCarriesAreFilledIn() {
        // verifyReceipt knows no price; the stale signed row does.
        let merged = Purchase.merged(
            Self.report(.verifyReceipt, at: 0), Self.report(.signedRow, at: -3, refunded: -4, price: 9_990))
        #expect(merged.revocation == nil)
        #expect(merged.price == CurrencyAmount(milliunits: 9_990) && merged.currency == "USD")
        #expect(merged.source == .verifyReceipt && merged.evidenceDate == World.day(0))
    }

    @Test func aRefundBothReportTakesTheDetailsOnlyTheOlderHas() {
        let merged = Purchase.merged(
            Self.report(.verifyReceipt, at: 0, refunded: -4),
            Self.report(.signedRow, at: -3, refunded: -4, percentage: 25_000))
        #expect(merged.revocation?.percentageMilliunits == 25_000 && merged.revocation?.type == "REFUND_PRORATED")
        #expect(merged.refundPercentage?.description == "25")
    }

    @Test func theUserIsNotRevokedForARefundAppleNoLongerReports() {
        // Row 1: a StoreKit 2 row signed while the refund stood. Row 2: Apple's answer now, the refund reversed.
        let stale = UserReceipt(
            receiptID: 1, classification: ReceiptClassification(outcome: .valid, detail: "test"),
            purchases: [Self.report(.signedRow, at: -3, refunded: -4, price: 9_990)], source: .signedRow)
        let fresh = World.receipt(2, [Self.report(.verifyReceipt, at: 0)])
        for receipts in [[stale, fresh], [fresh, stale]] {
            let truth = UserTruth.compute(
                receipts: receipts, catalog: World.catalog, sandboxPolicy: .revoke, isSandboxTester: false,
                asOf: World.asOf)
            #expect(truth["lifetime"]?.isActive == true)
            #expect(truth["lifetime"]?.refundedTransactions.isEmpty == true)
            #expect(truth["lifetime"]?.winningTransaction?.receiptID == 2, "the evidence names Apple's answer")
            let rows = UserDecision.transactionRows(receipts).rows
            #expect(rows.count == 1 && rows[0].cancelledAt == nil && rows[0].receiptID == 2)
        }
    }
}
