import AppStoreReceipts

/// One currency's refunded amount for a run, at customer prices: the summary's `refundedAmount`, the
/// report's table (CONTRACT §9, "Refunds and money"; docs/operations.md, "Refunded amount").
///
/// Customer prices: Apple's `price` is the price configured in App Store Connect on the purchase
/// date, after an offer's discount, for the quantity bought: what the customer was charged, not what
/// the developer is paid. Apple asks that it not be used to reconcile or recognise revenue, so the
/// figure is for support and estimates; App Store Connect's reports (Sales and Trends, the financial
/// reports) are the financial record.
///
/// What counts: the transactions this run recorded refunded *for the first time*
/// (`recon_refund_events` of kind `refund`), not every refunded transaction it saw again. Receipts are
/// re-verified run after run, so "all refunds seen" would count one refund in every run until the
/// receipt stops being due; "first seen" makes the runs' figures add up to the refunds the job has
/// recorded, each once. A run that finds a recorded refund reversed reports it apart
/// (`reversedRefundAmount`, events of kind `reversal`, counted as the refund was), so that summed over
/// runs refunded minus reversed is what still stands; a reversed refund that is refunded again counts
/// again.
public struct RefundedAmount: Codable, Equatable, Sendable {
    /// A `recon_refund_events.kind`: what a run recorded of a transaction's refund.
    public enum Event: String, Sendable {
        /// The run recorded the refund first.
        case refund
        /// The run recorded Apple's reversal of a refund an earlier run recorded.
        case reversal
    }

    /// ISO 4217 code.
    public var currency: String
    /// Σ price × percentage ÷ 100, rounded once to a milliunit (`figures`), printed as an exact
    /// decimal string (`"2.498"`).
    public var amount: CurrencyAmount
    /// Refunds counted.
    public var transactions: Int

    public init(currency: String, amount: CurrencyAmount, transactions: Int) {
        self.currency = currency
        self.amount = amount
        self.transactions = transactions
    }

    /// A transaction the run recorded refunded for the first time, as read back from
    /// `recon_transactions`.
    public struct Refund: Equatable, Sendable {
        public var price: CurrencyAmount?
        public var currency: String?
        /// Where Apple says the purchase was made; nil: not known, so not this database's.
        public var environment: AppStoreEnvironment?
        public var isUpgraded: Bool?
        public var ownershipType: String?
        public var revocationType: String?
        public var revocationPercentage: Percentage?

        public init(
            price: CurrencyAmount?, currency: String?, environment: AppStoreEnvironment? = .production,
            isUpgraded: Bool? = nil, ownershipType: String? = nil, revocationType: String? = nil,
            revocationPercentage: Percentage? = nil
        ) {
            self.price = price
            self.currency = currency
            self.environment = environment
            self.isUpgraded = isUpgraded
            self.ownershipType = ownershipType
            self.revocationType = revocationType
            self.revocationPercentage = revocationPercentage
        }
    }

    /// The share of its price a refund gives back to the figure of a database serving `environment`,
    /// or nil when it is not counted there:
    /// - `REFUND_FULL` / `REFUND_PRORATED`: its percentage, 100 when none was recorded;
    /// - no revocation type (verifyReceipt, which sends none): its percentage when it has one (a
    ///   cancellation that is not an upgrade is 100), else nothing;
    /// - never an upgraded transaction (its money moved to the upgrade), a family member's copy
    ///   (`FAMILY_SHARED`) or a family revocation (`FAMILY_REVOKE`), whose money is the purchaser's
    ///   transaction, any other revocation type, or a purchase of the other environment (sandbox
    ///   money is not money, and a production refund is not a sandbox database's).
    public static func share(of refund: Refund, environment: AppStoreEnvironment) -> Percentage? {
        guard refund.environment == environment, refund.isUpgraded != true,
            refund.ownershipType != "FAMILY_SHARED"
        else { return nil }
        switch refund.revocationType {
        case "REFUND_FULL", "REFUND_PRORATED": return refund.revocationPercentage ?? .full
        case nil: return refund.revocationPercentage
        default: return nil
        }
    }

    /// The run's refunds summed per currency, in currency-code order, for a database serving
    /// `environment`.
    ///
    /// Each refund counts price × percentage ÷ 100, summed exactly; the sum is rounded once, to a
    /// milliunit, half away from zero (25 % of 9.99 is 2.4975 → 2.498), as PostgreSQL's
    /// `round(numeric, 3)` rounds: `round(sum(price * revocation_percentage / 100), 3)` over the
    /// same rows gives the same figure.
    ///
    /// Left out besides what `share` leaves out: refunds without a price or currency (verifyReceipt
    /// never sends them, so a run over verifyReceipt data has an empty list, not zeros).
    public static func figures(_ refunds: [Refund], environment: AppStoreEnvironment) -> [RefundedAmount] {
        var byCurrency: [String: ExactSum] = [:]
        for refund in refunds {
            guard let price = refund.price, let currency = refund.currency, !currency.isEmpty,
                let share = share(of: refund, environment: environment)
            else { continue }
            byCurrency[currency, default: ExactSum()].add(price, share)
        }
        return byCurrency.map { currency, sum in
            RefundedAmount(currency: currency, amount: sum.rounded, transactions: sum.count)
        }
        .sorted { $0.currency < $1.currency }
    }

    /// price × percentage ÷ 100 summed without rounding: whole milliunits, and the rest in
    /// 1/100 000 of a milliunit (a percentage has three decimals, so price × thousandths ÷ 100 000
    /// is exact in those).
    struct ExactSum {
        static let scale: Int64 = 100_000
        /// floor of the sum, in milliunits.
        var milliunits: Int64 = 0
        /// The rest, 0..<scale.
        var rest: Int64 = 0
        var count = 0

        mutating func add(_ price: CurrencyAmount, _ share: Percentage) {
            // Full width: Int64 × 100 000 can overflow; the quotient cannot (share ≤ 100 %).
            var (quotient, remainder) = Self.scale.dividingFullWidth(
                price.milliunits.multipliedFullWidth(by: share.thousandths))
            if remainder < 0 {
                quotient -= 1
                remainder += Self.scale
            }
            var rest = self.rest + remainder
            if rest >= Self.scale {
                rest -= Self.scale
                quotient += 1
            }
            // A sum beyond Int64 milliunits (9 × 10^15 currency units) is not Apple's; left out
            // rather than stop the run's end.
            let (sum, overflow) = milliunits.addingReportingOverflow(quotient)
            guard !overflow else { return }
            (milliunits, self.rest) = (sum, rest)
            count += 1
        }

        /// Rounded to a milliunit, half away from zero.
        var rounded: CurrencyAmount {
            let half = Self.scale / 2
            // The value is milliunits + rest / scale; negative only when milliunits is.
            let up = milliunits >= 0 ? rest >= half : rest > half
            return CurrencyAmount(milliunits: up && milliunits < .max ? milliunits + 1 : milliunits)
        }
    }
}
