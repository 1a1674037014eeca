/// `offerType` of a transaction or renewal info. Unknown codes are kept (see `SignedEnvironment`).
public struct SignedOfferType: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let introductory = SignedOfferType(rawValue: 1)
    public static let promotional = SignedOfferType(rawValue: 2)
    public static let offerCode = SignedOfferType(rawValue: 3)
    public static let winBack = SignedOfferType(rawValue: 4)
}
