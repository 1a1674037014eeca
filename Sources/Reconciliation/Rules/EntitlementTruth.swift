import Foundation

/// What Apple says about one entitlement of one user at `as_of` (CONTRACT §5, "Truth per
/// entitlement" in docs/reconciliation-rules.md), with the facts the correction reasons need.
public struct EntitlementTruth: Hashable, Sendable {
    /// `products.entitlement`.
    public var entitlement: String
    /// Whether Apple says the user has access at `as_of`.
    public var isActive: Bool
    /// The end of access (`.never` for a non-consumable). When inactive: the last end
    /// the counting transactions reached, or nil when there is none.
    public var expiry: Expiry?
    /// The transaction that carries the access (or carried it last): gives `product_id` and
    /// `original_transaction_id`.
    public var winningTransaction: EntitlementTransaction?
    /// Whether `expiry` is the end of a billing-retry grace period (`grace_period_expires_date`).
    public var expiryIsGracePeriodEnd: Bool
    /// Transactions of counted receipts that were revoked (refunded or revoked from Family Sharing),
    /// oldest purchase first.
    public var refundedTransactions: [EntitlementTransaction]
    /// Whether the entitlement's newest transaction (latest `purchase_date`) on counted receipts
    /// was refunded.
    public var newestTransactionIsRefunded: Bool
    /// Whether that newest transaction's revocation ended Family Sharing (`family_revoke`), not a refund.
    public var newestRevocationIsFamily: Bool
    /// A subscription of the entitlement lapsed within Apple's billing-retry window of `as_of`, and
    /// Apple's renewal state for that instant is unknown (an `--as-of` in the past): it may be in a grace
    /// period, so it yields no `revoke` and no `shorten` (CONTRACT §9, "As of").
    public var lapseUnconfirmed = false
    /// Whether counted receipts hold a transaction of the entitlement that is not refunded.
    public var hasCountingTransactions: Bool
    /// How the receipts that carried transactions of the entitlement stand (any outcome).
    public var carriers: Set<ReceiptStanding>
    /// Whether a counted row of Apple's signed data carries the entitlement: evidence as of its
    /// `signedDate`, which cannot tell a renewal or refund since (CONTRACT §9).
    public var carriedBySignedData: Bool
    /// The stored rows whose purchases (Apple's, or what an unbelieved row claims) name the
    /// entitlement, by id: what a revoke's evidence names when only such rows carried it.
    public var carrierReceiptIDs: [Int64]

    public init(
        entitlement: String,
        isActive: Bool = false,
        expiry: Expiry? = nil,
        winningTransaction: EntitlementTransaction? = nil,
        expiryIsGracePeriodEnd: Bool = false,
        refundedTransactions: [EntitlementTransaction] = [],
        newestTransactionIsRefunded: Bool = false,
        newestRevocationIsFamily: Bool = false,
        hasCountingTransactions: Bool = false,
        carriers: Set<ReceiptStanding> = [],
        carriedBySignedData: Bool = false,
        carrierReceiptIDs: [Int64] = []
    ) {
        self.entitlement = entitlement
        self.isActive = isActive
        self.expiry = expiry
        self.winningTransaction = winningTransaction
        self.expiryIsGracePeriodEnd = expiryIsGracePeriodEnd
        self.refundedTransactions = refundedTransactions
        self.newestTransactionIsRefunded = newestTransactionIsRefunded
        self.newestRevocationIsFamily = newestRevocationIsFamily
        self.hasCountingTransactions = hasCountingTransactions
        self.carriers = carriers
        self.carriedBySignedData = carriedBySignedData
        self.carrierReceiptIDs = carrierReceiptIDs
    }

    /// `expires_at` to write: nil means never expires (only meaningful when active).
    public var expiresAt: Date? { expiry?.date }
    /// `product_id` to write.
    public var productID: String? { winningTransaction?.productID }
    /// `original_transaction_id` to write.
    public var originalTransactionID: String? { winningTransaction?.originalTransactionID }
}
