/// Why a run took a user (CONTRACT §9 "Notification history"): the figures by reason. A user due for
/// several reasons is queued under the first, in the order of the cases.
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
