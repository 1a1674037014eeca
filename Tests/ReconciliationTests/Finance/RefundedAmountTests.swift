import AppStoreReceipts
import Testing

@testable import Reconciliation

/// `RefundedAmount.figures`: the run's first-recorded refunds, price × percentage ÷ 100 summed per
/// currency exactly and rounded once to a milliunit, half away from zero; only real refunds of the
/// database's environment count.
@Suite struct RefundedAmountTests {
    typealias Refund = RefundedAmount.Refund

    static func percent(_ thousandths: Int64) -> Percentage { Percentage(thousandths: thousandths)! }

    static func refund(
        _ milliunits: Int64, _ currency: String = "USD", type: String? = "REFUND_FULL", percent: Int64? = 100_000,
        environment: AppStoreEnvironment? = .production, upgraded: Bool? = nil, ownership: String? = "PURCHASED"
    ) -> Refund {
        Refund(
            price: CurrencyAmount(milliunits: milliunits), currency: currency, environment: environment,
            isUpgraded: upgraded, ownershipType: ownership, revocationType: type,
            revocationPercentage: percent.map(Self.percent))
    }

    static let cases: [(String, [Refund], [String])] = [
        ("no refunds", [], []),
        ("a full refund counts its price", [refund(9_990)], ["USD 9.99 1"]),
        (
            "prorated 25 % of 9.99 is 2.4975, rounded half away from zero",
            [refund(9_990, type: "REFUND_PRORATED", percent: 25_000)], ["USD 2.498 1"]
        ),
        (
            "half a milliunit rounds up (half-even would give 0.002)",
            [refund(5, type: "REFUND_PRORATED", percent: 50_000)], ["USD 0.003 1"]
        ),
        (
            "just under half a milliunit rounds down",
            [refund(5, type: "REFUND_PRORATED", percent: 49_999)], ["USD 0.002 1"]
        ),
        (
            "shares are summed exactly, then rounded once: 2.4975 + 2.4975 is 4.995",
            [
                refund(9_990, type: "REFUND_PRORATED", percent: 25_000),
                refund(9_990, type: "REFUND_PRORATED", percent: 25_000),
            ],
            ["USD 4.995 2"]
        ),
        (
            "a third with three decimals: 33.333 % of 3.00 is 0.99999",
            [refund(3_000, type: "REFUND_PRORATED", percent: 33_333)], ["USD 1 1"]
        ),
        ("a refund without a recorded percentage is full", [refund(1_990, percent: nil)], ["USD 1.99 1"]),
        (
            "a prorated refund without a percentage counts in full",
            [refund(1_990, type: "REFUND_PRORATED", percent: nil)], ["USD 1.99 1"]
        ),
        ("a zero percent refund counts as a refund of nothing", [refund(1_990, percent: 0)], ["USD 0 1"]),
        ("two refunds of one currency, exact", [refund(9_990), refund(9_990)], ["USD 19.98 2"]),
        ("a sum that binary floating point gets wrong", [refund(100), refund(200)], ["USD 0.3 2"]),
        (
            "currencies apart, in code order",
            [refund(1_990), refund(10_000, "EUR"), refund(10, type: "REFUND_PRORATED", percent: 50_000)],
            ["EUR 10 1", "USD 1.995 2"]
        ),
        (
            "verifyReceipt: no revocation type; its cancellation (100) counts when it has a price",
            [refund(4_990, type: nil, percent: 100_000)], ["USD 4.99 1"]
        ),
        ("verifyReceipt refunds have no price: nothing, not zero", [Refund(price: nil, currency: nil)], []),
        (
            "no revocation type and no percentage (an upgrade or family revocation as written) is not a refund",
            [refund(4_990, type: nil, percent: nil)], []
        ),
        ("a price without a currency is left out", [Refund(price: CurrencyAmount(milliunits: 1), currency: nil)], []),
        ("a currency without a price is left out", [Refund(price: nil, currency: "USD")], []),
        (
            "an upgraded transaction's money moved to the upgrade",
            [refund(9_990, upgraded: true), refund(9_990, type: nil, upgraded: true), refund(4_990, upgraded: false)],
            ["USD 4.99 1"]
        ),
        (
            "a family member's copy and a family revocation repeat the purchaser's money",
            [
                refund(4_990), refund(4_990, ownership: "FAMILY_SHARED"),
                refund(4_990, type: "FAMILY_REVOKE", percent: nil), refund(4_990, type: "FAMILY_REVOKE"),
                refund(4_990, type: nil, ownership: "FAMILY_SHARED"),
            ],
            ["USD 4.99 1"]
        ),
        ("a revocation type Apple adds later is not counted as a refund", [refund(4_990, type: "REFUND_2030")], []),
        (
            "the other environment never counts, nor an unknown one",
            [refund(9_990, environment: .sandbox), refund(9_990, environment: nil), refund(1_000)],
            ["USD 1 1"]
        ),
    ]

    @Test(arguments: cases)
    func figures(_ name: String, refunds: [Refund], expected: [String]) {
        let figures = RefundedAmount.figures(refunds, environment: .production)
        #expect(figures.map { "\($0.currency) \($0.amount) \($0.transactions)" } == expected, "\(name)")
    }

    /// A sandbox database's figure is its sandbox refunds, and only those.
    @Test func aSandboxDatabaseCountsSandboxRefundsOnly() {
        let refunds = [Self.refund(9_990, environment: .sandbox), Self.refund(1_000, environment: .production)]
        #expect(RefundedAmount.figures(refunds, environment: .sandbox).map(\.amount.description) == ["9.99"])
        #expect(RefundedAmount.figures(refunds, environment: .production).map(\.amount.description) == ["1"])
    }

    /// The exact sum holds where the product price × thousandths would overflow 64 bits, and a
    /// negative price (not Apple's) rounds half away from zero too.
    @Test func extremesStayExact() {
        let big = Int64.max / 1_000 * 1_000
        let halfOfBig = RefundedAmount.figures(
            [Self.refund(big, type: "REFUND_PRORATED", percent: 50_000)], environment: .production)
        #expect(halfOfBig.map(\.amount.milliunits) == [big / 2])
        let negative = RefundedAmount.figures(
            [Self.refund(-5, type: "REFUND_PRORATED", percent: 50_000)], environment: .production)
        #expect(negative.map(\.amount.description) == ["-0.003"])
        let negativeBelowHalf = RefundedAmount.figures(
            [Self.refund(-5, type: "REFUND_PRORATED", percent: 49_999)], environment: .production)
        #expect(negativeBelowHalf.map(\.amount.description) == ["-0.002"])
        // Two sums that would pass Int64 milliunits: the second is left out, the run's end does not trap.
        let overflowing = RefundedAmount.figures([Self.refund(.max), Self.refund(.max)], environment: .production)
        #expect(overflowing.map(\.transactions) == [1])
    }

    @Test func percentagesAreExactDecimalsFromZeroToAHundred() {
        #expect(Percentage(thousandths: 25_000)?.description == "25")
        #expect(Percentage(thousandths: 33_333)?.description == "33.333")
        #expect(Percentage.full.description == "100")
        #expect(Percentage(thousandths: 100_001) == nil && Percentage(thousandths: -1) == nil)
        #expect(Percentage(decimal: "100.000") == .full)
        #expect(Percentage(decimal: "2.5")?.thousandths == 2_500)
        #expect(Percentage(decimal: "33.3333") == nil && Percentage(decimal: "101") == nil)
        #expect(Percentage(decimal: "-0.001") == nil && Percentage(decimal: "x") == nil)
    }
}
