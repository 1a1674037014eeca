/// `offerDiscountType` of a transaction or renewal info. Unknown values are kept (see
/// `SignedEnvironment`).
public struct SignedOfferDiscountType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let freeTrial = SignedOfferDiscountType(rawValue: "FREE_TRIAL")
    public static let payAsYouGo = SignedOfferDiscountType(rawValue: "PAY_AS_YOU_GO")
    public static let payUpFront = SignedOfferDiscountType(rawValue: "PAY_UP_FRONT")
    public static let oneTime = SignedOfferDiscountType(rawValue: "ONE_TIME")
}
