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
    /// `product_id`.
    public var productID: String?
    /// `transaction_id`.
    public var transactionID: String?
    /// `original_transaction_id`: the subscription chain, or the original purchase of a restore.
    public var originalTransactionID: String?
    /// `quantity`.
    public var quantity: Int?
    /// `purchase_date_ms` (else `purchase_date`); for a renewal, the renewal time.
    public var purchaseDate: Date?
    /// `original_purchase_date_ms` (else `original_purchase_date`).
    public var originalPurchaseDate: Date?
    /// `expires_date_ms`, else `expires_date` (text in app receipts, milliseconds in iOS 6
    /// ones), else `expires_date_formatted`; auto-renewable subscriptions only.
    public var expiresDate: Date?
    /// `cancellation_date_ms` (else `cancellation_date`): refunded or revoked at this time.
    public var cancellationDate: Date?
    /// `cancellation_reason`: 1 = the customer cited a problem with the app, 0 = another reason.
    public var cancellationReason: Int?
    /// `is_trial_period`.
    public var isTrialPeriod: Bool?
    /// `is_in_intro_offer_period`.
    public var isInIntroOfferPeriod: Bool?
    /// `is_upgraded`: cancelled because the customer upgraded; the upgrade target carries access.
    public var isUpgraded: Bool?
    /// `web_order_line_item_id`: one subscription period, stable across devices.
    public var webOrderLineItemID: String?
    /// `in_app_ownership_type` as sent: `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    /// `subscription_group_identifier`.
    public var subscriptionGroupIdentifier: String?
    /// `promotional_offer_id`.
    public var promotionalOfferID: String?
    /// `offer_code_ref_name`.
    public var offerCodeRefName: String?
    /// `app_account_token`.
    public var appAccountToken: String?
    /// `item_id` (iOS 6 transaction receipts only): the product's App Store id.
    public var itemID: String?

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
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.cancellationReason = cancellationReason
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.isUpgraded = isUpgraded
        self.webOrderLineItemID = webOrderLineItemID
        self.inAppOwnershipType = inAppOwnershipType
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.promotionalOfferID = promotionalOfferID
        self.offerCodeRefName = offerCodeRefName
        self.appAccountToken = appAccountToken
        self.itemID = itemID
    }

    /// Whether `in_app_ownership_type` says the purchase was shared by a family member.
    public var isFamilyShared: Bool { inAppOwnershipType == "FAMILY_SHARED" }
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
