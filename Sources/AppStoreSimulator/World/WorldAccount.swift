import AppStoreReceipts

/// One Apple ID's purchases in one app, as the App Store's database holds them.
///
/// An account lives in one environment (production or sandbox) and one app (bundle id). Its receipts
/// are snapshots of `transactions` at their creation dates; Apple's answers show the account as it is
/// at the world's `asOf`, which is how the world "moves on" after a receipt was issued.
public struct WorldAccount: Sendable, Hashable {
    /// Whether Apple can answer for this account.
    public enum Standing: Sendable, Hashable {
        case good
        /// The Apple ID was deleted: verifyReceipt answers 21010 (`is_retryable` false) for its receipts.
        case deleted(at: Int64)
        /// Apple's data for this account is broken: 21199 with `is_retryable` false, deterministically.
        /// An Apple-side fault, not a verdict on the receipt (CONTRACT §5 makes it `unverified`).
        case internalError
    }

    /// The pending renewal state of one auto-renewable chain at `asOf` (`pending_renewal_info`).
    public struct RenewalInfo: Sendable, Hashable {
        public var originalTransactionID: String
        public var productID: String
        public var autoRenewProductID: String
        public var autoRenewStatus: Bool
        /// `expiration_intent`, only once the subscription has expired or is failing to renew.
        public var expirationIntent: Int?
        /// `is_in_billing_retry_period`; nil leaves the key out (the subscription is fine).
        public var isInBillingRetryPeriod: Bool?
        public var gracePeriodExpiresMs: Int64?
    }

    /// The account's index in its unit; part of every id it issues.
    public var slot: Int
    public var environment: AppStoreEnvironment
    public var bundleID: String
    /// `app_item_id` (0 in the sandbox).
    public var appItemID: Int64
    public var downloadID: Int64?
    public var versionExternalIdentifier: Int64
    /// When the app was first downloaded on this account (`original_purchase_date` of the receipt).
    public var appDownloadMs: Int64
    public var originalApplicationVersion: String
    public var applicationVersion: String
    /// Every transaction, ordered by purchase date.
    public var transactions: [WorldTransaction]
    /// One per auto-renewable chain, in the order the chains started.
    public var renewals: [RenewalInfo]
    public var standing: Standing
    /// Seeds the receipt's device hash bytes (attribute 5).
    var deviceSeed: UInt64

    /// The transactions purchased at or before `instant`, in purchase order.
    public func transactions(purchasedBy instant: Int64) -> [WorldTransaction] {
        transactions.filter { $0.purchaseMs <= instant }
    }

    /// Whether the account bought any auto-renewable by `instant`: Apple then adds `latest_receipt`,
    /// `latest_receipt_info` and `pending_renewal_info` to its answers.
    public func hasAutoRenewables(by instant: Int64) -> Bool {
        transactions.contains { $0.purchaseMs <= instant && WorldCatalog.product($0.productID)?.kind == .autoRenewable }
    }

    public func transaction(withID id: String) -> WorldTransaction? {
        transactions.first { $0.transactionID == id }
    }
}
