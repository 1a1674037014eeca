/// A decided user on its way to the writers, with why the run took it (the summary counts users by
/// what happened to them, per reason).
struct WritableUser: Sendable {
    let decided: UserDecision.Verified
    /// nil when the night is not driven by notifications.
    let reason: DueReason?

    var userID: String { decided.userID }
}

extension UnitPlan {
    /// The plan takes access away (a `revoke` or a `shorten`): what waits for the revoke judge.
    var takesAway: Bool { corrections.contains { $0.action == .revoke || $0.action == .shorten } }
}
