import Foundation

/// The `receipt` object of a verifyReceipt response: Apple's decoded copy of the receipt sent.
///
/// Two shapes arrive under the same key. An iOS 7+ app receipt lists its purchases in
/// `in_app`; an iOS 6 transaction receipt is one flat purchase (`bid`, `bvrs`, `item_id`,
/// `transaction_id`, ...), which is decoded into `transaction`.
///
/// See Apple's [responseBody.Receipt](https://developer.apple.com/documentation/appstorereceipts/responsebody/receipt).
public struct VerifyReceiptDecodedReceipt: Hashable, Sendable {
    /// Which kind of receipt Apple decoded.
    public enum Format: String, Hashable, Sendable {
        /// iOS 7+ app receipt (PKCS#7 from `appStoreReceiptURL`), purchases in `in_app`.
        case appReceipt = "app_receipt"
        /// iOS 6 `transactionReceipt`: one purchase, flat.
        case transactionReceipt = "transaction_receipt"
    }

    public var format: Format
    /// `receipt_type`: `Production`, `ProductionSandbox`, `ProductionVPP`, `ProductionVPPSandbox`.
    public var receiptType: String?
    /// `bundle_id` (iOS 6: `bid`).
    public var bundleID: String?
    /// `application_version` (iOS 6: `bvrs`).
    public var applicationVersion: String?
    /// `original_application_version`.
    public var originalApplicationVersion: String?
    /// `receipt_creation_date_ms` (else `receipt_creation_date`).
    public var receiptCreationDate: Date?
    /// `request_date_ms` (else `request_date`): when Apple answered.
    public var requestDate: Date?
    /// `original_purchase_date_ms` (else `original_purchase_date`): the app's first download.
    public var originalPurchaseDate: Date?
    /// `expiration_date_ms` (else `expiration_date`, which can be milliseconds): Volume
    /// Purchase Program receipts only; nil means the receipt does not expire.
    public var expirationDate: Date?
    /// `app_item_id` (else `adam_id`): the app's App Store id; "0" in the sandbox.
    public var appItemID: String?
    /// `download_id`; Apple sends `null` at times.
    public var downloadID: String?
    /// `version_external_identifier`.
    public var versionExternalIdentifier: String?
    /// `in_app`: the purchases of an app receipt; empty for a valid receipt with no purchases.
    public var inApp: [VerifyReceiptTransaction]
    /// The purchase of an iOS 6 transaction receipt; nil for app receipts.
    public var transaction: VerifyReceiptTransaction?

    public init(
        format: Format = .appReceipt,
        receiptType: String? = nil,
        bundleID: String? = nil,
        applicationVersion: String? = nil,
        originalApplicationVersion: String? = nil,
        receiptCreationDate: Date? = nil,
        requestDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        expirationDate: Date? = nil,
        appItemID: String? = nil,
        downloadID: String? = nil,
        versionExternalIdentifier: String? = nil,
        inApp: [VerifyReceiptTransaction] = [],
        transaction: VerifyReceiptTransaction? = nil
    ) {
        self.format = format
        self.receiptType = receiptType
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.receiptCreationDate = receiptCreationDate
        self.requestDate = requestDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expirationDate = expirationDate
        self.appItemID = appItemID
        self.downloadID = downloadID
        self.versionExternalIdentifier = versionExternalIdentifier
        self.inApp = inApp
        self.transaction = transaction
    }
}
