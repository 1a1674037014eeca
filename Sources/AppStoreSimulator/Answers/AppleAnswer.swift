import AppStoreReceipts

/// One verifyReceipt answer, as values: what Apple says about a receipt, before it becomes JSON.
///
/// `ExpectationDeriver` reads these values and `AppleAnswer+JSON` writes them in Apple's shapes, so
/// the expected file and the served bytes cannot disagree about what Apple said.
public struct AppleAnswer: Sendable, Hashable {
    /// The decoded `receipt` of an app receipt.
    public struct AppReceipt: Sendable, Hashable {
        public var receiptType: String
        public var appItemID: Int64
        public var bundleID: String
        public var applicationVersion: String
        public var downloadID: Int64?
        public var versionExternalIdentifier: Int64
        public var creationMs: Int64
        public var requestMs: Int64
        public var originalPurchaseMs: Int64
        public var originalApplicationVersion: String
        public var inApp: [WorldTransaction.View]
    }

    /// The flat `receipt` of an iOS 6 transaction receipt.
    public struct TransactionReceipt: Sendable, Hashable {
        public var bundleID: String
        public var applicationVersion: String
        public var appItemID: Int64
        public var versionExternalIdentifier: Int64
        /// The device's `unique_identifier` and `unique_vendor_identifier`.
        public var uniqueIdentifier: String
        public var uniqueVendorIdentifier: String
        public var transaction: WorldTransaction.View
    }

    public var status: Int
    /// `environment`; nil leaves the key out (bare redirects and 21002, iOS 6 answers).
    public var environment: AppStoreEnvironment?
    /// `is_retryable`; nil leaves the key out.
    public var isRetryable: Bool?
    public var receipt: AppReceipt?
    public var transactionReceipt: TransactionReceipt?
    /// `latest_receipt_info` (app receipts: an array; iOS 6: one object, the chain's newest period).
    public var latestReceiptInfo: [WorldTransaction.View]?
    /// iOS 6 with status 21006: `latest_expired_receipt_info`, one object.
    public var latestExpiredReceiptInfo: WorldTransaction.View?
    /// `latest_receipt`: receipt data; never log it.
    public var latestReceipt: String?
    /// App receipts: `pending_renewal_info[]`; iOS 6: the one chain's fields at the top level.
    public var pendingRenewalInfo: [WorldAccount.RenewalInfo]?

    /// A bare status answer such as `{"status":21007}`.
    public static func bare(_ status: Int, environment: AppStoreEnvironment? = nil, isRetryable: Bool? = nil)
        -> AppleAnswer
    {
        AppleAnswer(status: status, environment: environment, isRetryable: isRetryable)
    }

    /// Every transaction the answer shows, `in_app`/`receipt` first, then the latest infos.
    public var transactions: [WorldTransaction.View] {
        (receipt?.inApp ?? []) + (transactionReceipt.map { [$0.transaction] } ?? [])
            + (latestReceiptInfo ?? []) + (latestExpiredReceiptInfo.map { [$0] } ?? [])
    }

    /// The bundle id Apple reports (`bundle_id`, or `bid` for iOS 6).
    public var bundleID: String? { receipt?.bundleID ?? transactionReceipt?.bundleID }
}
