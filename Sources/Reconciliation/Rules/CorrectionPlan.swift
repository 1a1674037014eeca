/// Everything the planner decided for one user.
public struct CorrectionPlan: Hashable, Sendable {
    /// Sorted by entitlement.
    public var corrections: [PlannedCorrection]
    /// Per-user flags (`entitlement_without_receipt`), at most one per kind.
    public var userFlags: [PlannedFlag]

    public init(corrections: [PlannedCorrection] = [], userFlags: [PlannedFlag] = []) {
        self.corrections = corrections
        self.userFlags = userFlags
    }

    /// Whether the user counts toward the revoke breaker ("users with at least one revoke").
    public var hasRevoke: Bool { corrections.contains { $0.action == .revoke } }
}
