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
    // lists, into the user's receipts, through the rules). Every copy of a plain struct retains and
    // releases each string (a large share of the job's reference counting: docs/benchmarks.md); a
    // copy of the box is one retain. Writes copy the box first unless this value is its only owner (`CopyOnWrite`).
    private var storage: CopyOnWrite<Fields>

    /// `product_id`.
    public var productID: String? {
        get { storage.value.productID }
        set { storage.value.productID = newValue }
    }
    /// `transaction_id`.
    public var transactionID: String? {
        get { storage.value.transactionID }
        set { storage.value.transactionID = newValue }
    }
    /// `original_transaction_id`: the subscription chain, or the original purchase of a restore.
    public var originalTransactionID: String? {
        get { storage.value.originalTransactionID }
        set { storage.value.originalTransactionID = newValue }
    }
    /// `quantity`.
    public var quantity: Int? {
        get { storage.value.quantity }
        set { storage.value.quantity = newValue }
    }
    /// `purchase_date_ms` (else `purchase_date`); for a renewal, the renewal time.
    public var purchaseDate: Date? {
        get { storage.value.purchaseDate }
        set { storage.value.purchaseDate = newValue }
    }
    /// `original_purchase_date_ms` (else `original_purchase_date`).
    public var originalPurchaseDate: Date? {
        get { storage.value.originalPurchaseDate }
        set { storage.value.originalPurchaseDate = newValue }
    }
    /// `expires_date_ms`, else `expires_date` (text in app receipts, milliseconds in iOS 6
    /// ones), else `expires_date_formatted`; auto-renewable subscriptions only.
    public var expiresDate: Date? {
        get { storage.value.expiresDate }
        set { storage.value.expiresDate = newValue }
    }
    /// `cancellation_date_ms` (else `cancellation_date`): refunded or revoked at this time.
    public var cancellationDate: Date? {
        get { storage.value.cancellationDate }
        set { storage.value.cancellationDate = newValue }
    }
    /// `cancellation_reason`: 1 = the customer cited a problem with the app, 0 = another reason.
    public var cancellationReason: Int? {
        get { storage.value.cancellationReason }
        set { storage.value.cancellationReason = newValue }
    }
    /// `is_trial_period`.
    public var isTrialPeriod: Bool? {
        get { storage.value.isTrialPeriod }
        set { storage.value.isTrialPeriod = newValue }
    }
    /// `is_in_intro_offer_period`.
    public var isInIntroOfferPeriod: Bool? {
        get { storage.value.isInIntroOfferPeriod }
        set { storage.value.isInIntroOfferPeriod = newValue }
    }
    /// `is_upgraded`: cancelled because the customer upgraded; the upgrade target carries access.
    public var isUpgraded: Bool? {
        get { storage.value.isUpgraded }
        set { storage.value.isUpgraded = newValue }
    }
    /// `web_order_line_item_id`: one subscription period, stable across devices.
    public var webOrderLineItemID: String? {
        get { storage.value.webOrderLineItemID }
        set { storage.value.webOrderLineItemID = newValue }
    }
    /// `in_app_ownership_type` as sent: `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String? {
        get { storage.value.inAppOwnershipType }
        set { storage.value.inAppOwnershipType = newValue }
    }
    /// `subscription_group_identifier`.
    public var subscriptionGroupIdentifier: String? {
        get { storage.value.subscriptionGroupIdentifier }
        set { storage.value.subscriptionGroupIdentifier = newValue }
    }
    /// `promotional_offer_id`.
    public var promotionalOfferID: String? {
        get { storage.value.promotionalOfferID }
        set { storage.value.promotionalOfferID = newValue }
    }
    /// `offer_code_ref_name`.
    public var offerCodeRefName: String? {
        get { storage.value.offerCodeRefName }
        set { storage.value.offerCodeRefName = newValue }
    }
    /// `app_account_token`.
    public var appAccountToken: String? {
        get { storage.value.appAccountToken }
        set { storage.value.appAccountToken = newValue }
    }
    /// `item_id` (iOS 6 transaction receipts only): the product's App Store id.
    public var itemID: String? {
        get { storage.value.itemID }
        set { storage.value.itemID = newValue }
    }

    // The finance fields (CONTRACT §9, "Finance"): only signed data carries them (a StoreKit 2 row,
    // the App Store Server API); verifyReceipt answers never do, so they stay nil there.

    /// `price`: Apple's milliunits of `currency` (1990 is 1.99), kept as the integer Apple sent so
    /// that nothing between the answer and `recon_transactions` rounds it.
    public var price: Int64? {
        get { storage.value.price }
        set { storage.value.price = newValue }
    }
    /// `currency`: ISO 4217 code.
    public var currency: String? {
        get { storage.value.currency }
        set { storage.value.currency = newValue }
    }
    /// `storefront`: ISO 3166-1 alpha-3 code.
    public var storefront: String? {
        get { storage.value.storefront }
        set { storage.value.storefront = newValue }
    }
    /// `offerType`'s raw code (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int? {
        get { storage.value.offerType }
        set { storage.value.offerType = newValue }
    }
    /// `offerDiscountType` as sent (`FREE_TRIAL`, `PAY_AS_YOU_GO`, …).
    public var offerDiscountType: String? {
        get { storage.value.offerDiscountType }
        set { storage.value.offerDiscountType = newValue }
    }
    /// `transactionReason` as sent (`PURCHASE`, `RENEWAL`).
    public var transactionReason: String? {
        get { storage.value.transactionReason }
        set { storage.value.transactionReason = newValue }
    }
    /// `revocationType` as sent (`REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`).
    public var revocationType: String? {
        get { storage.value.revocationType }
        set { storage.value.revocationType = newValue }
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
        itemID: String? = nil,
        price: Int64? = nil,
        currency: String? = nil,
        storefront: String? = nil,
        offerType: Int? = nil,
        offerDiscountType: String? = nil,
        transactionReason: String? = nil,
        revocationType: String? = nil
    ) {
        storage = CopyOnWrite(
            Fields(
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
                itemID: itemID,
                price: price,
                currency: currency,
                storefront: storefront,
                offerType: offerType,
                offerDiscountType: offerDiscountType,
                transactionReason: transactionReason,
                revocationType: revocationType))
    }

    /// Whether `in_app_ownership_type` says the purchase was shared by a family member.
    public var isFamilyShared: Bool { inAppOwnershipType == "FAMILY_SHARED" }

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
        var price: Int64?
        var currency: String?
        var storefront: String?
        var offerType: Int?
        var offerDiscountType: String?
        var transactionReason: String?
        var revocationType: String?
    }
}

extension VerifyReceiptTransaction: CustomReflectable {
    /// The fields, as if stored here: printed transactions and test failures show them, not the box.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: storage.value).children, displayStyle: .struct)
    }
}
