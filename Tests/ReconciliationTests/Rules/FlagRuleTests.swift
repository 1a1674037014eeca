import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

struct FlagCase: Sendable, CustomTestStringConvertible {
    var name: String
    var receipts: [UserReceipt]
    /// `receipt N kind`, in order.
    var flags: [String]

    var testDescription: String { name }
}

private typealias W = World

/// docs/reconciliation-rules.md, the flag column and the lists below it.
private let cases: [FlagCase] = [
    FlagCase(
        name: "valid receipt, nothing special -> no flag",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25)])], flags: []),
    FlagCase(
        name: "refunded transaction -> refunded",
        receipts: [W.receipt([W.subscription("1000", bought: -5, expires: 25, refunded: -1)])],
        flags: ["receipt 1 refunded"]),
    FlagCase(
        name: "two refunded transactions on one receipt -> one refunded flag",
        receipts: [
            W.receipt([
                W.subscription("1000", bought: -35, expires: -5, refunded: -10),
                W.purchase("3000", product: W.lifetime, bought: -3, refunded: -1),
            ])
        ],
        flags: ["receipt 1 refunded"]),
    FlagCase(
        name: "upgrade cancellation is not a refund -> no flag",
        receipts: [
            W.receipt([
                W.subscription("1000", product: W.yearly, bought: -30, expires: 335, refunded: -2, upgraded: true)
            ])
        ],
        flags: []),
    FlagCase(
        name: "refunded consumable -> refunded",
        receipts: [W.receipt([W.purchase("5000", product: W.coins, bought: -3, refunded: -1)])],
        flags: ["receipt 1 refunded"]),
    FlagCase(
        name: "product not in products -> unknown_product",
        receipts: [W.receipt([W.purchase("6000", product: "com.other.gold", bought: -1)])],
        flags: ["receipt 1 unknown_product"]),
    FlagCase(
        name: "misrouted receipt -> sandbox_in_production, and its refunds",
        receipts: [W.receipt(1, .misrouted, [W.subscription("1000", bought: -5, expires: 25, refunded: -1)])],
        flags: ["receipt 1 sandbox_in_production", "receipt 1 refunded"]),
    FlagCase(
        name: "bundle mismatch -> bundle_mismatch only",
        receipts: [
            W.receipt(
                1, .invalid, flag: .bundleMismatch,
                [W.subscription("1000", bought: -5, expires: 25, refunded: -1)])
        ],
        flags: ["receipt 1 bundle_mismatch"]),
    FlagCase(
        name: "invalid receipt -> invalid_receipt only",
        receipts: [W.receipt(1, .invalid, [W.purchase("6000", product: "com.other.gold", bought: -1)])],
        flags: ["receipt 1 invalid_receipt"]),
    FlagCase(
        name: "unverified receipt -> unverified",
        receipts: [W.receipt(1, .unverified, [])],
        flags: ["receipt 1 unverified"]),
    FlagCase(
        name: "every kind on one receipt, in vocabulary order; receipts by id",
        receipts: [
            W.receipt(7, .unverified, []),
            W.receipt(
                3, .misrouted,
                [
                    W.purchase("6000", product: "com.other.gold", bought: -1),
                    W.subscription("1000", bought: -5, expires: 25, refunded: -1),
                ]),
        ],
        flags: [
            "receipt 3 sandbox_in_production", "receipt 3 refunded",
            "receipt 3 unknown_product", "receipt 7 unverified",
        ]),
]

@Suite("Flags (docs/reconciliation-rules.md)")
struct FlagRuleTests {
    @Test(arguments: cases)
    func receiptFlags(_ testCase: FlagCase) {
        let flags = FlagRule.receiptFlags(testCase.receipts, catalog: W.catalog, asOf: W.asOf)
        #expect(flags.map { "receipt \($0.receiptID ?? -1) \($0.kind)" } == testCase.flags)
    }

    @Test("a refunded flag names the refunded transactions")
    func refundedDetail() {
        let detail = FlagRule.refundedRule(
            [
                W.subscription("1001", bought: -5, expires: 25, refunded: -1),
                W.subscription("1000", bought: -35, expires: -5),
            ], asOf: W.asOf)
        #expect(detail == "refunded: 1001 (com.app.premium.monthly)")
    }
}
