// The coded values of a transaction. Each is a struct over Apple's raw value, not an enum, so
// that a value Apple adds later is kept and printed instead of failing the payload.

extension SignedTransaction {
    /// `type`.
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable Subscription")
        public static let nonRenewing = ProductType(rawValue: "Non-Renewing Subscription")
        public static let consumable = ProductType(rawValue: "Consumable")
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
    }

    /// `inAppOwnershipType`.
    public struct InAppOwnershipType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")
        public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")
    }

    /// `revocationReason`.
    public struct RevocationReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let other = RevocationReason(rawValue: 0)
        /// An actual or perceived issue within the app.
        public static let appIssue = RevocationReason(rawValue: 1)
    }

    /// `revocationType`, on newer data.
    public struct RevocationType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let refundFull = RevocationType(rawValue: "REFUND_FULL")
        public static let refundProrated = RevocationType(rawValue: "REFUND_PRORATED")
        public static let familyRevoke = RevocationType(rawValue: "FAMILY_REVOKE")
    }

    /// `transactionReason`.
    public struct TransactionReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let purchase = TransactionReason(rawValue: "PURCHASE")
        public static let renewal = TransactionReason(rawValue: "RENEWAL")
    }
}
