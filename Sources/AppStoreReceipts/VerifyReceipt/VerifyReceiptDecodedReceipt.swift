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

extension VerifyReceiptDecodedReceipt: AppleJSONDecodable {
    init(_ json: AppleJSONObject) {
        // `bid` only exists in transaction receipts; a flat `transaction_id` without `in_app`
        // is the same shape with `bid` missing.
        let isTransactionReceipt =
            json.contains("bid")
            || (!json.contains("in_app") && json.contains("transaction_id"))
        self.init(
            format: isTransactionReceipt ? .transactionReceipt : .appReceipt,
            receiptType: json.appleString("receipt_type"),
            bundleID: json.appleString("bundle_id") ?? json.appleString("bid"),
            applicationVersion: json.appleString("application_version") ?? json.appleString("bvrs"),
            originalApplicationVersion: json.appleString("original_application_version"),
            receiptCreationDate: json.appleDate(
                milliseconds: "receipt_creation_date_ms", text: "receipt_creation_date"),
            requestDate: json.appleDate(milliseconds: "request_date_ms", text: "request_date"),
            originalPurchaseDate: json.appleDate(
                milliseconds: "original_purchase_date_ms", text: "original_purchase_date"),
            expirationDate: json.appleDate(milliseconds: "expiration_date_ms", text: "expiration_date"),
            appItemID: json.appleString("app_item_id") ?? json.appleString("adam_id"),
            downloadID: json.appleString("download_id"),
            versionExternalIdentifier: json.appleString("version_external_identifier"),
            inApp: json.appleList(VerifyReceiptTransaction.self, "in_app"),
            // The same object read a second time, as a purchase.
            transaction: isTransactionReceipt ? VerifyReceiptTransaction(json) : nil
        )
    }
}
