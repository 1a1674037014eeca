import CivilTime

/// One row of `products` (CONTRACT §4).
public struct Product: Hashable, Sendable {
    public var productID: String
    public var kind: ProductKind
    /// What the product unlocks; nil for consumables (and then it grants nothing).
    public var entitlement: String?
    /// Access length from purchase; `non_renewing` only.
    public var duration: CalendarDuration?

    public init(productID: String, kind: ProductKind, entitlement: String?, duration: CalendarDuration? = nil) {
        self.productID = productID
        self.kind = kind
        self.entitlement = entitlement
        self.duration = duration
    }
}
