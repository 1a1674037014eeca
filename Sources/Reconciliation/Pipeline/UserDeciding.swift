/// Stage 3, decide: each verified user's answers go through the pure rules (`UserDecision.decide`:
/// per receipt outcome, the user's truth) and the decided user is queued for the writers; the run's
/// figures and the breakers learn what was classified. An answer saying the configuration is wrong
/// stops the run instead (exit 78), and once the run stops nothing more is decided or queued.
///
/// Threading: `decide` runs on the verification stage's worker thread that delivered the user's answer
/// (or the reader's, for a user that needed no request), one call per user; it blocks while the
/// writers' queue is full. Everything it touches is `Sendable`.
struct UserDeciding: Sendable {
    let runID: Int64
    let settings: UserDecision.Settings
    let control: RunControl
    let counters: RunCounters
    let writing: UserWriting
    let log: EventLog

    /// Decides one user from Apple's answer and queues it for writing.
    func decide(_ user: UserWork, _ answer: AppleUserAnswer) {
        // Stopped for anything but a signal or a spent budget: what was checked is not written (the run's
        // results stop where it stopped). Those two let what is in flight finish.
        if control.discardsUnwrittenUsers { return }
        if let abort = answer.configurationAbort {
            log.log(.error, "run.configuration_error", ["run_id": String(runID), "error": "\(abort)"])
            control.stop(.appleConfiguration(reason: "Apple reported a configuration error: \(abort)"))
            return
        }
        // A run that stopped asking (its budget spent) left rows of this user unasked: the truth needs every
        // row, and one row alone proves no other purchase gone. The user is not written; the next night
        // takes it whole.
        guard answer.receipts.count == user.receipts.count else { return }
        let decided = UserDecision.decide(
            userID: user.userID, answers: answer.receipts, isSandboxTester: user.isSandboxTester, settings: settings)
        // Judged before it is queued: the judges speak on every user a writer could take.
        control.classified(
            receipts: decided.results.count, unverified: decided.transientlyUnverifiedReceipts,
            unknownProducts: decided.unknownProductIDs, cause: decided.transientCause)
        counters.addClassified(receipts: decided.results.count, unverified: decided.unverifiedReceipts)
        writing.put(decided, reason: user.reason)
    }
}
