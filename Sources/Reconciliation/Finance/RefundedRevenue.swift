/// One currency's refunded revenue for a run: the summary's `refundedRevenue`, the report's table.
///
/// What counts (docs/operations.md, "Refunded revenue"): the transactions this run recorded refunded
/// *for the first time* (`recon_transactions.refund_run_id`), not every refunded transaction it saw
/// again. Receipts are re-verified run after run, so "all refunds seen" would count one refund in
/// every run until the receipt stops being due; "first seen" makes the runs' figures add up to the
/// refunds the job has recorded, each once. A reversed refund that is refunded again counts again.
///
/// The amount is each transaction's `price` as Apple reported it, whole: a prorated refund
/// (`REFUND_PRORATED`) counts its full price, because the refunded share is not recorded.
public struct RefundedRevenue: Codable, Equatable, Sendable {
    /// ISO 4217 code.
    public var currency: String
    /// Sum of the transactions' prices, printed as an exact decimal string (`"19.98"`).
    public var amount: CurrencyAmount
    public var transactions: Int

    public init(currency: String, amount: CurrencyAmount, transactions: Int) {
        self.currency = currency
        self.amount = amount
        self.transactions = transactions
    }

    /// A transaction the run recorded refunded for the first time, as read back.
    public struct Refund: Equatable, Sendable {
        public var price: CurrencyAmount?
        public var currency: String?
        public var ownershipType: String?
        public var revocationType: String?

        public init(
            price: CurrencyAmount?, currency: String?, ownershipType: String? = nil, revocationType: String? = nil
        ) {
            self.price = price
            self.currency = currency
            self.ownershipType = ownershipType
            self.revocationType = revocationType
        }
    }

    /// The run's refunds summed per currency, in currency-code order.
    ///
    /// Left out: refunds without a price or currency (verifyReceipt never sends them, so a run over
    /// verifyReceipt data has an empty list, not zeros), and family sharing: a family member's copy
    /// (`FAMILY_SHARED`, revoked with `FAMILY_REVOKE`) repeats the purchaser's price, and the
    /// purchaser's own transaction already carries the money.
    public static func figures(_ refunds: [Refund]) -> [RefundedRevenue] {
        var byCurrency: [String: RefundedRevenue] = [:]
        for refund in refunds {
            guard let price = refund.price, let currency = refund.currency, !currency.isEmpty,
                refund.ownershipType != "FAMILY_SHARED", refund.revocationType != "FAMILY_REVOKE"
            else { continue }
            byCurrency[currency, default: RefundedRevenue(currency: currency, amount: .zero, transactions: 0)]
                .add(price)
        }
        return byCurrency.values.sorted { $0.currency < $1.currency }
    }

    private mutating func add(_ price: CurrencyAmount) {
        amount = amount + price
        transactions += 1
    }
}
