import Foundation

/// One correction of one entitlement row: a `recon_corrections` row, and what `apply` writes to
/// `entitlements`.
public struct PlannedCorrection: Hashable, Sendable {
    public var entitlement: String
    public var action: CorrectionAction
    public var reason: CorrectionReason
    /// `before_active`; nil when there was no row (a grant inserts one).
    public var beforeActive: Bool?
    /// `before_expires_at`; nil when the row never expires or there was no row.
    public var beforeExpiresAt: Date?
    /// `after_active`.
    public var afterActive: Bool
    /// `after_expires_at`; nil: never expires.
    public var afterExpiresAt: Date?
    /// `product_id`: the truth's for grant/extend/shorten, the row's for a revoke.
    public var productID: String?
    /// `original_transaction_id`: the truth's for grant/extend/shorten, the row's for a revoke.
    public var originalTransactionID: String?
    /// The `entitlements` row after `apply` (source `app_store`). A revoke sets `active = false`
    /// and keeps `expires_at`, `product_id` and `original_transaction_id`; a grant, extend or
    /// shorten sets `active = true`, `expires_at`, `product_id` and `original_transaction_id`
    /// from the truth.
    public var rowAfter: EntitlementRow
    /// Whether `apply` updates an existing row (true) or inserts one (false, a grant only).
    public var rowExists: Bool
    /// `evidence`: the Apple fact that decided it (`Evidence.correction`); nil only for a correction
    /// built by hand.
    public var evidence: Evidence?

    public init(
        entitlement: String,
        action: CorrectionAction,
        reason: CorrectionReason,
        beforeActive: Bool?,
        beforeExpiresAt: Date?,
        afterActive: Bool,
        afterExpiresAt: Date?,
        productID: String?,
        originalTransactionID: String?,
        rowAfter: EntitlementRow,
        rowExists: Bool,
        evidence: Evidence? = nil
    ) {
        self.entitlement = entitlement
        self.action = action
        self.reason = reason
        self.beforeActive = beforeActive
        self.beforeExpiresAt = beforeExpiresAt
        self.afterActive = afterActive
        self.afterExpiresAt = afterExpiresAt
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.rowAfter = rowAfter
        self.rowExists = rowExists
        self.evidence = evidence
    }
}
