/// `products.kind` (CONTRACT §4), which decides how a product's transactions become access
/// (CONTRACT §5, "Truth per entitlement").
public enum ProductKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Grants no entitlement.
    case consumable
    /// Active while a counting transaction exists; never expires.
    case nonConsumable = "non_consumable"
    /// Active until the latest `expires_date` of the chain, or the grace period's end.
    case autoRenewable = "auto_renewable"
    /// Active until `purchase_date + products.duration`.
    case nonRenewing = "non_renewing"

    public var description: String { rawValue }
}
