import Testing

@testable import Reconciliation

/// `RefundedRevenue.figures`: the run's first-recorded refunds summed per currency, exactly.
@Suite struct RefundedRevenueTests {
    typealias Refund = RefundedRevenue.Refund

    static func usd(_ milliunits: Int64) -> Refund {
        Refund(price: CurrencyAmount(milliunits: milliunits), currency: "USD", ownershipType: "PURCHASED")
    }

    static let cases: [(String, [Refund], [String])] = [
        ("no refunds", [], []),
        ("verifyReceipt refunds have no price: nothing, not zero", [Refund(price: nil, currency: nil)], []),
        ("two of one currency, exact", [usd(9_990), usd(9_990)], ["USD 19.98 2"]),
        ("a sum that binary floating point gets wrong", [usd(100), usd(200)], ["USD 0.3 2"]),
        (
            "currencies apart, in code order",
            [usd(1_990), Refund(price: CurrencyAmount(milliunits: 10_000), currency: "EUR"), usd(10)],
            ["EUR 10 1", "USD 2 2"]
        ),
        ("a price without a currency is left out", [Refund(price: CurrencyAmount(milliunits: 1), currency: nil)], []),
        ("a currency without a price is left out", [Refund(price: nil, currency: "USD")], []),
        (
            "a family member's copy repeats the purchaser's money",
            [
                usd(4_990),
                Refund(price: CurrencyAmount(milliunits: 4_990), currency: "USD", ownershipType: "FAMILY_SHARED"),
                Refund(price: CurrencyAmount(milliunits: 4_990), currency: "USD", revocationType: "FAMILY_REVOKE"),
            ],
            ["USD 4.99 1"]
        ),
        (
            "a prorated refund counts the transaction's whole price",
            [Refund(price: CurrencyAmount(milliunits: 59_990), currency: "JPY", revocationType: "REFUND_PRORATED")],
            ["JPY 59.99 1"]
        ),
    ]

    @Test(arguments: cases)
    func figures(_ name: String, refunds: [Refund], expected: [String]) {
        let figures = RefundedRevenue.figures(refunds)
        #expect(figures.map { "\($0.currency) \($0.amount) \($0.transactions)" } == expected, "\(name)")
    }
}
