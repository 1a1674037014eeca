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
        /// The Apple ID was deleted: verifyReceipt answers 21010 (`is_retryable` false) for its receipts,
        /// the Server API 4040001 (account not found) for its ids, in either environment.
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
    /// Ids of this account the Server API answers 4040010 for although it has them (Apple: "in rare
    /// cases, you might get this error for transaction IDs that previously returned data"). The history
    /// fetched with any other id of the account still lists them; verifyReceipt is not affected.
    public var idsTheServerAPILoses: Set<String> = []
    /// How long after the world's `asOf` Apple answers about this account: a user a night reaches hours
    /// after its start (the run's `--as-of`). Apple's answers show the account as it is then, events
    /// after `asOf` included; 0 for every account but those of `upgradedDuringNight`.
    public var answeredAfterAsOfMs: Int64 = 0

    /// The instant Apple answers about this account at, in a world living at `asOf`.
    public func answeredAt(worldAsOf asOf: Int64) -> Int64 { asOf + answeredAfterAsOfMs }

    /// The transactions purchased at or before `instant`, in purchase order.
    public func transactions(purchasedBy instant: Int64) -> [WorldTransaction] {
        transactions.filter { $0.purchaseMs <= instant }
    }

    /// Whether the account bought any auto-renewable by `instant`: Apple then adds `latest_receipt`,
    /// `latest_receipt_info` and `pending_renewal_info` to its answers.
    public func hasAutoRenewables(by instant: Int64) -> Bool {
        transactions.contains { $0.purchaseMs <= instant && WorldCatalog.product($0.productID)?.kind == .autoRenewable }
    }

    /// The device's `unique_identifier` in iOS 6 answers: `00008020-` and 16 hex digits, like a UDID.
    public var deviceIdentifier: String {
        "00008020-" + hex(SplitMix64.mix(deviceSeed), digits: 16).uppercased()
    }

    /// `unique_vendor_identifier`: a UUID.
    public var vendorIdentifier: String {
        let high = hex(SplitMix64.mix(deviceSeed ^ 0x5A5A), digits: 16).uppercased()
        let low = hex(SplitMix64.mix(deviceSeed ^ 0xA5A5), digits: 16).uppercased()
        let text = Array(high + low)
        return String(text[0..<8]) + "-" + String(text[8..<12]) + "-" + String(text[12..<16]) + "-"
            + String(text[16..<20]) + "-" + String(text[20..<32])
    }

    private func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    public func transaction(withID id: String) -> WorldTransaction? {
        transactions.first { $0.transactionID == id }
    }
}
