import Foundation

/// One correction of one entitlement row: a `recon_corrections` row. The planner makes it, the writer
/// writes it (and `apply` the `entitlements` row it describes), `verify-user` and `revert` read it back.
///
/// What `apply` writes to `entitlements` (source `app_store`): a revoke sets `active = false` and keeps
/// the row's `expires_at`, `product_id` and `original_transaction_id` (the values recorded here); a
/// grant, extend or shorten sets `active = true`, `expires_at`, `product_id` and
/// `original_transaction_id` from the truth, inserting the row when there was none (a grant only).
public struct CorrectionRecord: Hashable, Sendable {
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
    /// `evidence`: the Apple fact that decided it (`Evidence.correction`); nil for a correction built by
    /// hand, and where it is not read back (`verify-user`'s report, `revert`).
    public var evidence: Evidence?
    /// `reverts_correction_id`: on a `reverted` row, the correction it undoes; nil for every other reason.
    public var revertsCorrectionID: Int64?

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
        evidence: Evidence? = nil,
        revertsCorrectionID: Int64? = nil
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
        self.evidence = evidence
        self.revertsCorrectionID = revertsCorrectionID
    }
}
