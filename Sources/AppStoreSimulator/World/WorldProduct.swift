/// One in-app product of the simulated App Store.
public struct WorldProduct: Sendable, Hashable {
    /// The four kinds of CONTRACT §4 `products.kind`, spelled as there.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case consumable
        case nonConsumable = "non_consumable"
        case autoRenewable = "auto_renewable"
        case nonRenewing = "non_renewing"

        /// Attribute 1707 of an in-app receipt entry (undocumented; RevenueCat's reading).
        var receiptProductType: Int {
            switch self {
            case .nonConsumable: 0
            case .consumable: 1
            case .nonRenewing: 2
            case .autoRenewable: 3
            }
        }
    }

    /// A subscription's billing period: how long one renewal lasts.
    public enum Period: String, Sendable, Hashable {
        case month, year
    }

    public let id: String
    public let kind: Kind
    /// `products.entitlement`; nil for consumables.
    public let entitlement: String?
    /// Auto-renewables: the billing period.
    public let period: Period?
    /// Non-renewing: `products.duration` in days.
    public let durationDays: Int?
    /// Whether the app's `products` table lists it. A product the App Store sells but the table lacks
    /// is what `unknown_product` is about.
    public let isInProductsTable: Bool
    /// Apple's `item_id` (iOS 6 receipts).
    public let itemID: Int64
}
