/// Why a run took a user (CONTRACT §9 "Notification history"): the figures by reason, and the order
/// in which a run under notifications takes its users.
public enum DueReason: String, Sendable, CaseIterable {
    /// A notification Apple sent about a purchase the user holds is not yet handled.
    case notified
    /// The user has a row never verified.
    case new
    /// Among the users verified longest ago: the sweep that re-verifies everyone every `--sweep-days`.
    case sweep
    /// A receipt last verified before `--older-than` (every user of today's selection).
    case olderThan = "older_than"
}
