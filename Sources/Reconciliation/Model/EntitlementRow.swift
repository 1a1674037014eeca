import Foundation

/// One row of `entitlements` for one user, as the planner reads it and as `apply` writes it.
public struct EntitlementRow: Hashable, Sendable {
    /// The only `source` the job reads for corrections and writes.
    public static let appStoreSource = "app_store"

    public var entitlement: String
    public var active: Bool
    /// nil: does not expire.
    public var expiresAt: Date?
    public var productID: String?
    public var originalTransactionID: String?
    /// `entitlements.source`; rows with another source are never touched (guard 3).
    public var source: String
    /// `entitlements.updated_at`: when the app (or the job) last wrote the row; signed evidence older than
    /// this never grants again (CONTRACT §9, "Signed rows").
    public var updatedAt: Date?

    public init(
        entitlement: String,
        active: Bool,
        expiresAt: Date?,
        productID: String? = nil,
        originalTransactionID: String? = nil,
        source: String = EntitlementRow.appStoreSource,
        updatedAt: Date? = nil
    ) {
        self.entitlement = entitlement
        self.active = active
        self.expiresAt = expiresAt
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.source = source
        self.updatedAt = updatedAt
    }

    public var isAppStore: Bool { source == Self.appStoreSource }
}
