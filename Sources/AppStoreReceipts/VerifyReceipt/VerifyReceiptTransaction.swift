import Foundation

/// One in-app purchase transaction from a verifyReceipt response: an element of
/// `receipt.in_app`, `latest_receipt_info` or `latest_expired_receipt_info`, or the flat
/// `receipt` of an iOS 6 transaction receipt.
///
/// Every field is optional because Apple omits what does not apply (no `expires_date` for a
/// consumable, no `cancellation_date` unless refunded) and sandbox differs from production.
/// Ids stay `String`: transaction ids reach 16+ digits and are sometimes masked upstream.
///
/// See Apple's [responseBody.Latest_receipt_info](https://developer.apple.com/documentation/appstorereceipts/responsebody/latest_receipt_info)
/// and [responseBody.Receipt.In_app](https://developer.apple.com/documentation/appstorereceipts/responsebody/receipt/in_app).
public struct VerifyReceiptTransaction: Hashable, Sendable {
    // Why a box: a transaction is a score of fields, ten of them strings, and the job copies each
    // one about five times on its way from the answer to the database (merged across the answer's
    // lists, into the user's receipts, through the rules). Every copy of the plain struct retained
    // and released each string (callgrind: a tenth of all reference counting in the job); a copy of
    // the box is one retain. Writes copy the box first unless this value is its only owner.
    private var storage: Storage

    /// `product_id`.
    public var productID: String? {
        get { storage.fields.productID }
        set { mutableFields.productID = newValue }
    }
    /// `transaction_id`.
    public var transactionID: String? {
        get { storage.fields.transactionID }
        set { mutableFields.transactionID = newValue }
    }
    /// `original_transaction_id`: the subscription chain, or the original purchase of a restore.
    public var originalTransactionID: String? {
        get { storage.fields.originalTransactionID }
        set { mutableFields.originalTransactionID = newValue }
    }
    /// `quantity`.
    public var quantity: Int? {
        get { storage.fields.quantity }
        set { mutableFields.quantity = newValue }
    }
    /// `purchase_date_ms` (else `purchase_date`); for a renewal, the renewal time.
    public var purchaseDate: Date? {
        get { storage.fields.purchaseDate }
        set { mutableFields.purchaseDate = newValue }
    }
    /// `original_purchase_date_ms` (else `original_purchase_date`).
    public var originalPurchaseDate: Date? {
        get { storage.fields.originalPurchaseDate }
        set { mutableFields.originalPurchaseDate = newValue }
    }
    /// `expires_date_ms`, else `expires_date` (text in app receipts, milliseconds in iOS 6
    /// ones), else `expires_date_formatted`; auto-renewable subscriptions only.
    public var expiresDate: Date? {
        get { storage.fields.expiresDate }
        set { mutableFields.expiresDate = newValue }
    }
    /// `cancellation_date_ms` (else `cancellation_date`): refunded or revoked at this time.
    public var cancellationDate: Date? {
        get { storage.fields.cancellationDate }
        set { mutableFields.cancellationDate = newValue }
    }
    /// `cancellation_reason`: 1 = the customer cited a problem with the app, 0 = another reason.
    public var cancellationReason: Int? {
        get { storage.fields.cancellationReason }
        set { mutableFields.cancellationReason = newValue }
    }
    /// `is_trial_period`.
    public var isTrialPeriod: Bool? {
        get { storage.fields.isTrialPeriod }
        set { mutableFields.isTrialPeriod = newValue }
    }
    /// `is_in_intro_offer_period`.
    public var isInIntroOfferPeriod: Bool? {
        get { storage.fields.isInIntroOfferPeriod }
        set { mutableFields.isInIntroOfferPeriod = newValue }
    }
    /// `is_upgraded`: cancelled because the customer upgraded; the upgrade target carries access.
    public var isUpgraded: Bool? {
        get { storage.fields.isUpgraded }
        set { mutableFields.isUpgraded = newValue }
    }
    /// `web_order_line_item_id`: one subscription period, stable across devices.
    public var webOrderLineItemID: String? {
        get { storage.fields.webOrderLineItemID }
        set { mutableFields.webOrderLineItemID = newValue }
    }
    /// `in_app_ownership_type` as sent: `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String? {
        get { storage.fields.inAppOwnershipType }
        set { mutableFields.inAppOwnershipType = newValue }
    }
    /// `subscription_group_identifier`.
    public var subscriptionGroupIdentifier: String? {
        get { storage.fields.subscriptionGroupIdentifier }
        set { mutableFields.subscriptionGroupIdentifier = newValue }
    }
    /// `promotional_offer_id`.
    public var promotionalOfferID: String? {
        get { storage.fields.promotionalOfferID }
        set { mutableFields.promotionalOfferID = newValue }
    }
    /// `offer_code_ref_name`.
    public var offerCodeRefName: String? {
        get { storage.fields.offerCodeRefName }
        set { mutableFields.offerCodeRefName = newValue }
    }
    /// `app_account_token`.
    public var appAccountToken: String? {
        get { storage.fields.appAccountToken }
        set { mutableFields.appAccountToken = newValue }
    }
    /// `item_id` (iOS 6 transaction receipts only): the product's App Store id.
    public var itemID: String? {
        get { storage.fields.itemID }
        set { mutableFields.itemID = newValue }
    }

    public init(
        productID: String? = nil,
        transactionID: String? = nil,
        originalTransactionID: String? = nil,
        quantity: Int? = nil,
        purchaseDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil,
        cancellationDate: Date? = nil,
        cancellationReason: Int? = nil,
        isTrialPeriod: Bool? = nil,
        isInIntroOfferPeriod: Bool? = nil,
        isUpgraded: Bool? = nil,
        webOrderLineItemID: String? = nil,
        inAppOwnershipType: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        promotionalOfferID: String? = nil,
        offerCodeRefName: String? = nil,
        appAccountToken: String? = nil,
        itemID: String? = nil
    ) {
        storage = Storage(Fields(
            productID: productID,
            transactionID: transactionID,
            originalTransactionID: originalTransactionID,
            quantity: quantity,
            purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate,
            expiresDate: expiresDate,
            cancellationDate: cancellationDate,
            cancellationReason: cancellationReason,
            isTrialPeriod: isTrialPeriod,
            isInIntroOfferPeriod: isInIntroOfferPeriod,
            isUpgraded: isUpgraded,
            webOrderLineItemID: webOrderLineItemID,
            inAppOwnershipType: inAppOwnershipType,
            subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            promotionalOfferID: promotionalOfferID,
            offerCodeRefName: offerCodeRefName,
            appAccountToken: appAccountToken,
            itemID: itemID))
    }

    /// Whether `in_app_ownership_type` says the purchase was shared by a family member.
    public var isFamilyShared: Bool { inAppOwnershipType == "FAMILY_SHARED" }

    public static func == (lhs: VerifyReceiptTransaction, rhs: VerifyReceiptTransaction) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }

    /// The fields, for writing: the box is copied first when another value shares it.
    private var mutableFields: Fields {
        _read { yield storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }

    private struct Fields: Hashable, Sendable {
        var productID: String?
        var transactionID: String?
        var originalTransactionID: String?
        var quantity: Int?
        var purchaseDate: Date?
        var originalPurchaseDate: Date?
        var expiresDate: Date?
        var cancellationDate: Date?
        var cancellationReason: Int?
        var isTrialPeriod: Bool?
        var isInIntroOfferPeriod: Bool?
        var isUpgraded: Bool?
        var webOrderLineItemID: String?
        var inAppOwnershipType: String?
        var subscriptionGroupIdentifier: String?
        var promotionalOfferID: String?
        var offerCodeRefName: String?
        var appAccountToken: String?
        var itemID: String?
    }

    /// Shared by copies of a transaction until one of them writes (`mutableFields`), so never
    /// written while shared: `@unchecked Sendable` holds as it does for the standard library's
    /// copy-on-write buffers.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }
}

extension VerifyReceiptTransaction: AppleJSONDecodable {
    init(_ json: AppleJSONObject) {
        self.init(
            productID: json.appleString("product_id"),
            transactionID: json.appleString("transaction_id"),
            originalTransactionID: json.appleString("original_transaction_id"),
            quantity: json.appleInt("quantity"),
            purchaseDate: json.appleDate(milliseconds: "purchase_date_ms", text: "purchase_date"),
            originalPurchaseDate: json.appleDate(
                milliseconds: "original_purchase_date_ms", text: "original_purchase_date"),
            expiresDate: json.appleDate(
                milliseconds: "expires_date_ms", text: "expires_date", "expires_date_formatted"),
            cancellationDate: json.appleDate(milliseconds: "cancellation_date_ms", text: "cancellation_date"),
            cancellationReason: json.appleInt("cancellation_reason"),
            isTrialPeriod: json.appleBool("is_trial_period"),
            isInIntroOfferPeriod: json.appleBool("is_in_intro_offer_period"),
            isUpgraded: json.appleBool("is_upgraded"),
            webOrderLineItemID: json.appleString("web_order_line_item_id"),
            inAppOwnershipType: json.appleString("in_app_ownership_type"),
            subscriptionGroupIdentifier: json.appleString("subscription_group_identifier"),
            promotionalOfferID: json.appleString("promotional_offer_id"),
            offerCodeRefName: json.appleString("offer_code_ref_name"),
            appAccountToken: json.appleString("app_account_token"),
            itemID: json.appleString("item_id")
        )
    }
}
