// The coded values of renewal info, kept as Apple's raw values (see `SignedTransaction+Kinds`).

extension SignedRenewalInfo {
    /// `autoRenewStatus`.
    public struct AutoRenewStatus: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let off = AutoRenewStatus(rawValue: 0)
        public static let on = AutoRenewStatus(rawValue: 1)
    }

    /// `expirationIntent`: why a subscription expired.
    public struct ExpirationIntent: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let customerCancelled = ExpirationIntent(rawValue: 1)
        public static let billingError = ExpirationIntent(rawValue: 2)
        public static let declinedPriceIncrease = ExpirationIntent(rawValue: 3)
        public static let productUnavailable = ExpirationIntent(rawValue: 4)
        public static let other = ExpirationIntent(rawValue: 5)
    }

    /// `priceIncreaseStatus`.
    public struct PriceIncreaseStatus: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let noResponse = PriceIncreaseStatus(rawValue: 0)
        /// Consented to, or was notified of, a price increase.
        public static let consented = PriceIncreaseStatus(rawValue: 1)
    }
}
