import Foundation

/// A decoded `JWSRenewalInfoDecodedPayload`: the state of one auto-renewable subscription's next
/// renewal (`signedRenewalInfo`).
///
/// Every field is optional, as for `SignedTransaction`; Apple's own test data carries nothing
/// but `environment` and `signedDate`. There is no `bundleId`: a verifier checks the environment
/// only. `renewalPrice` stays in milliunits, with `renewalPriceAmount` beside it.
public struct SignedRenewalInfo: Hashable, Sendable {
    public var originalTransactionID: String?
    public var productID: String?
    /// The product the subscription renews to (differs from `productID` after a downgrade).
    public var autoRenewProductID: String?
    public var autoRenewStatus: AutoRenewStatus?
    public var expirationIntent: ExpirationIntent?
    public var isInBillingRetryPeriod: Bool?
    /// Access continues until then while in the billing grace period (subscription status 4).
    public var gracePeriodExpiresDate: Date?
    public var priceIncreaseStatus: PriceIncreaseStatus?
    public var renewalDate: Date?
    /// Milliunits of `currency`; see `renewalPriceAmount`.
    public var renewalPrice: Int64?
    /// ISO 4217.
    public var currency: String?
    /// The start of the current run of renewals, ignoring lapses shorter than 60 days.
    public var recentSubscriptionStartDate: Date?
    public var offerType: SignedOfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: SignedOfferDiscountType?
    /// An ISO 8601 duration (`P1Y`).
    public var offerPeriod: String?
    public var eligibleWinBackOfferIDs: [String]?
    public var environment: SignedEnvironment?
    public var signedDate: Date?
    public var appAccountToken: String?
    public var appTransactionID: String?

    public init(
        originalTransactionID: String? = nil, productID: String? = nil, autoRenewProductID: String? = nil,
        autoRenewStatus: AutoRenewStatus? = nil, expirationIntent: ExpirationIntent? = nil,
        isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Date? = nil,
        priceIncreaseStatus: PriceIncreaseStatus? = nil, renewalDate: Date? = nil, renewalPrice: Int64? = nil,
        currency: String? = nil, recentSubscriptionStartDate: Date? = nil, offerType: SignedOfferType? = nil,
        offerIdentifier: String? = nil, offerDiscountType: SignedOfferDiscountType? = nil, offerPeriod: String? = nil,
        eligibleWinBackOfferIDs: [String]? = nil, environment: SignedEnvironment? = nil, signedDate: Date? = nil,
        appAccountToken: String? = nil, appTransactionID: String? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.priceIncreaseStatus = priceIncreaseStatus
        self.renewalDate = renewalDate
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.eligibleWinBackOfferIDs = eligibleWinBackOfferIDs
        self.environment = environment
        self.signedDate = signedDate
        self.appAccountToken = appAccountToken
        self.appTransactionID = appTransactionID
    }

    /// `renewalPrice` in units of `currency` (9990 → 9.99).
    public var renewalPriceAmount: Decimal? {
        renewalPrice.map(Milliunits.decimal)
    }

    init(_ json: AppleJSONObject) {
        self.init(
            originalTransactionID: json.appleString("originalTransactionId"),
            productID: json.appleString("productId"),
            autoRenewProductID: json.appleString("autoRenewProductId"),
            autoRenewStatus: json.signedInt("autoRenewStatus").map(AutoRenewStatus.init),
            expirationIntent: json.signedInt("expirationIntent").map(ExpirationIntent.init),
            isInBillingRetryPeriod: json.appleBool("isInBillingRetryPeriod"),
            gracePeriodExpiresDate: json.unixMillisecondsDate("gracePeriodExpiresDate"),
            priceIncreaseStatus: json.signedInt("priceIncreaseStatus").map(PriceIncreaseStatus.init),
            renewalDate: json.unixMillisecondsDate("renewalDate"),
            renewalPrice: json.signedInt64("renewalPrice"),
            currency: json.appleString("currency"),
            recentSubscriptionStartDate: json.unixMillisecondsDate("recentSubscriptionStartDate"),
            offerType: json.signedInt("offerType").map(SignedOfferType.init),
            offerIdentifier: json.appleString("offerIdentifier"),
            offerDiscountType: json.appleString("offerDiscountType").map(SignedOfferDiscountType.init),
            offerPeriod: json.appleString("offerPeriod"),
            eligibleWinBackOfferIDs: json.signedStringArray("eligibleWinBackOfferIds"),
            environment: json.appleString("environment").map(SignedEnvironment.init),
            signedDate: json.unixMillisecondsDate("signedDate"),
            appAccountToken: json.appleString("appAccountToken"),
            appTransactionID: json.appleString("appTransactionId")
        )
    }
}
