import Foundation

/// A decoded `JWSTransactionDecodedPayload`: one purchase, renewal or refund as the App Store
/// signed it (`Transaction.jwsRepresentation`, `signedTransactionInfo`, `signedTransactions[]`).
///
/// Every field is optional: reading never fails, and a field that is absent or of an unexpected
/// shape is nil (research/server-api.md §6). Dates are Unix milliseconds as Apple sends them,
/// fractional ones included; `price` stays in Apple's milliunits, with `priceAmount` beside it.
/// Ids are strings; numeric ids sent as JSON numbers keep all their digits.
public struct SignedTransaction: Hashable, Sendable {
    public var transactionID: String?
    /// Stable across a subscription's renewals, or for one purchase across restores.
    public var originalTransactionID: String?
    /// One per billing period of a subscription.
    public var webOrderLineItemID: String?
    public var bundleID: String?
    public var productID: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Date?
    public var originalPurchaseDate: Date?
    /// Auto-renewable subscriptions only.
    public var expiresDate: Date?
    public var quantity: Int?
    public var type: ProductType?
    public var inAppOwnershipType: InAppOwnershipType?
    public var signedDate: Date?
    /// Present when the purchase was refunded or revoked from Family Sharing.
    public var revocationDate: Date?
    public var revocationReason: RevocationReason?
    public var revocationType: RevocationType?
    /// Milliunits of a percent: 50000 is 50 %.
    public var revocationPercentage: Int?
    /// True when the customer moved to a higher level of the group: the entitlement continues on
    /// the new transaction.
    public var isUpgraded: Bool?
    public var offerType: SignedOfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: SignedOfferDiscountType?
    /// An ISO 8601 duration (`P1Y`).
    public var offerPeriod: String?
    public var environment: SignedEnvironment?
    /// ISO 3166-1 alpha-3.
    public var storefront: String?
    public var storefrontID: String?
    public var transactionReason: TransactionReason?
    /// Milliunits of `currency` (10990 is 10.99); see `priceAmount`.
    public var price: Int64?
    /// ISO 4217.
    public var currency: String?
    public var appAccountToken: String?
    public var appTransactionID: String?

    public init(
        transactionID: String? = nil, originalTransactionID: String? = nil, webOrderLineItemID: String? = nil,
        bundleID: String? = nil, productID: String? = nil, subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Date? = nil, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil, quantity: Int? = nil,
        type: ProductType? = nil, inAppOwnershipType: InAppOwnershipType? = nil, signedDate: Date? = nil,
        revocationDate: Date? = nil, revocationReason: RevocationReason? = nil, revocationType: RevocationType? = nil,
        revocationPercentage: Int? = nil, isUpgraded: Bool? = nil, offerType: SignedOfferType? = nil,
        offerIdentifier: String? = nil, offerDiscountType: SignedOfferDiscountType? = nil, offerPeriod: String? = nil,
        environment: SignedEnvironment? = nil, storefront: String? = nil, storefrontID: String? = nil,
        transactionReason: TransactionReason? = nil, price: Int64? = nil, currency: String? = nil,
        appAccountToken: String? = nil, appTransactionID: String? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.bundleID = bundleID
        self.productID = productID
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.environment = environment
        self.storefront = storefront
        self.storefrontID = storefrontID
        self.transactionReason = transactionReason
        self.price = price
        self.currency = currency
        self.appAccountToken = appAccountToken
        self.appTransactionID = appTransactionID
    }

    /// `price` in units of `currency` (10990 → 10.99).
    public var priceAmount: Decimal? {
        price.map(Milliunits.decimal)
    }

    init(_ json: AppleJSONObject) {
        self.init(
            transactionID: json.appleString("transactionId"),
            originalTransactionID: json.appleString("originalTransactionId"),
            webOrderLineItemID: json.appleString("webOrderLineItemId"),
            bundleID: json.appleString("bundleId"),
            productID: json.appleString("productId"),
            subscriptionGroupIdentifier: json.appleString("subscriptionGroupIdentifier"),
            purchaseDate: json.unixMillisecondsDate("purchaseDate"),
            originalPurchaseDate: json.unixMillisecondsDate("originalPurchaseDate"),
            expiresDate: json.unixMillisecondsDate("expiresDate"),
            quantity: json.signedInt("quantity"),
            type: json.appleString("type").map(ProductType.init),
            inAppOwnershipType: json.appleString("inAppOwnershipType").map(InAppOwnershipType.init),
            signedDate: json.unixMillisecondsDate("signedDate"),
            revocationDate: json.unixMillisecondsDate("revocationDate"),
            revocationReason: json.signedInt("revocationReason").map(RevocationReason.init),
            revocationType: json.appleString("revocationType").map(RevocationType.init),
            revocationPercentage: json.signedInt("revocationPercentage"),
            isUpgraded: json.appleBool("isUpgraded"),
            offerType: json.signedInt("offerType").map(SignedOfferType.init),
            offerIdentifier: json.appleString("offerIdentifier"),
            offerDiscountType: json.appleString("offerDiscountType").map(SignedOfferDiscountType.init),
            offerPeriod: json.appleString("offerPeriod"),
            environment: json.appleString("environment").map(SignedEnvironment.init),
            storefront: json.appleString("storefront"),
            storefrontID: json.appleString("storefrontId"),
            transactionReason: json.appleString("transactionReason").map(TransactionReason.init),
            price: json.signedInt64("price"),
            currency: json.appleString("currency"),
            appAccountToken: json.appleString("appAccountToken"),
            appTransactionID: json.appleString("appTransactionId")
        )
    }
}
