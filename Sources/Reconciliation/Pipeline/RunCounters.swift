import AppStoreReceipts
import Foundation
import Synchronization

/// The live figures of one run, shared by every lane and writer: what the progress line, the circuit
/// breakers and the final summary read.
///
/// Threading: every method may be called from any thread; the state sits behind one `Mutex` and no
/// method does I/O while holding it.
final class RunCounters: Sendable {
    private struct State {
        var summary = RunSummary()
        var latencies = LatencyHistogram()
        var revokedUsers = 0
        /// Receipts due when the run started (`RunProgress.receiptsDue`).
        var receiptsDue: Int?
        /// Receipts whose answers were classified, and how many of them `unverified`: the progress
        /// counts Apple's work as it is done, not as the writers commit it (none is written before the
        /// breakers have seen their first receipts).
        var receiptsClassified = 0
        var unverifiedClassified = 0
        /// The endpoint whose request budget for the night was spent first.
        var spentEndpoint: String?
        /// Users the run's queue took (a night driven by notifications), in all and per reason.
        var queuedUsers = 0
        var queuedByReason: [String: Int] = [:]
    }

    private let state: Mutex<State>
    let started = Date()
    /// The run's phases, timed by the stages that own them.
    let phases = RunPhases()

    init(summary: RunSummary) {
        state = Mutex(State(summary: summary))
    }

    /// Users the selection handed to Apple's side (what they became is counted as they are written).
    func addSelected(users: Int, receipts: Int) {
        state.withLock {
            $0.summary.usersSelected += users
            $0.summary.receiptsSelected += receipts
        }
    }

    /// The night is driven by notifications: its users and requests are counted by reason.
    func countByReason() {
        state.withLock {
            $0.summary.usersByReason = [:]
            $0.summary.usersLeftByReason = [:]
            $0.summary.requestsByReason = [:]
        }
    }

    /// The notifications this run stored that no stored row holds, once the run is done.
    func setUnmatchedNotifications(_ count: Int) {
        state.withLock { $0.summary.notifications?.unmatched = count }
    }

    /// What the night read from Apple's notification history.
    func setNotifications(_ figures: NotificationFigures) {
        state.withLock { $0.summary.notifications = figures }
    }

    /// The budget's figures, with the endpoint whose night was spent. - Returns: what was recorded.
    @discardableResult
    func setBudget(_ figures: BudgetFigures) -> BudgetFigures {
        state.withLock { state in
            var figures = figures
            figures.spentEndpoint = state.spentEndpoint
            state.summary.budget = figures
            return figures
        }
    }

    /// An endpoint's request budget for the night was spent (the first one is recorded).
    func budgetSpent(_ endpoint: String) {
        state.withLock { state in
            if state.spentEndpoint == nil { state.spentEndpoint = endpoint }
        }
    }

    /// The run's queue took `users`, `byReason` (a night driven by notifications).
    func setQueued(users: Int, byReason: [String: Int]) {
        state.withLock {
            $0.queuedUsers = users
            $0.queuedByReason = byReason
        }
    }

    /// A night driven by notifications is done: the users its queue held that it did not write are left
    /// for the next night (they stay due), counted per reason. - Returns: how many.
    @discardableResult
    func leaveQueuedUsers() -> Int {
        state.withLock { state in
            let written = state.summary.usersByReason ?? [:]
            var left: [String: Int] = [:]
            for (reason, queued) in state.queuedByReason where queued > written[reason, default: 0] {
                left[reason] = queued - written[reason, default: 0]
            }
            state.summary.usersLeftByReason = left
            let total = max(0, state.queuedUsers - state.summary.usersProcessed)
            state.summary.budget?.usersLeft = total
            return total
        }
    }

    /// The receipts due when the run started, counted before the walk: the progress's "of how many".
    func setDue(receipts: Int) {
        state.withLock { $0.receiptsDue = receipts }
    }

    /// One user's answers were classified (before it is written).
    func addClassified(receipts: Int, unverified: Int) {
        state.withLock {
            $0.receiptsClassified += receipts
            $0.unverifiedClassified += unverified
        }
    }

    /// How far the run has got, for the progress line and the `run.progress` event.
    func progress() -> RunProgress {
        state.withLock { state in
            RunProgress(
                runID: state.summary.runID, shard: state.summary.shard,
                receiptsDone: state.receiptsClassified, receiptsDue: state.receiptsDue,
                receiptsSelected: state.summary.receiptsSelected, unverified: state.unverifiedClassified,
                elapsedSeconds: Date().timeIntervalSince(started))
        }
    }

    /// Apple traffic of one exchange (each distinct receipt once), for a user due for `reason`.
    func addTraffic(_ report: AppleTraffic, reason: DueReason? = nil) {
        state.withLock { state in
            if let reason, state.summary.requestsByReason != nil {
                state.summary.requestsByReason![reason.rawValue, default: 0] += report.requests
            }
            state.summary.appleRequests += report.requests
            state.summary.appleRetries += report.retries
            state.summary.appleThrottled += report.throttled
            state.summary.appleHops += report.hops
            if !report.requestsByEndpoint.isEmpty {
                state.summary.appleRequestsByEndpoint = state.summary.appleRequestsByEndpoint ?? [:]
                state.summary.appleRequestsByEndpoint!.merge(report.requestsByEndpoint, uniquingKeysWith: +)
            }
            if !report.serverAPIAnswers.isEmpty {
                state.summary.serverAPIAnswers = state.summary.serverAPIAnswers ?? [:]
                state.summary.serverAPIAnswers!.merge(report.serverAPIAnswers, uniquingKeysWith: +)
            }
            for latency in report.latencies { state.latencies.record(latency) }
        }
    }

    /// One user was written: its receipts' outcomes (`unverified`: how many transient and permanent), its
    /// plan, and why the run took it (`reason`, counted when the night is driven by notifications).
    func addUser(
        outcomes: [ReceiptOutcome], appleStatuses: [Int?], unverified: (transient: Int, permanent: Int) = (0, 0),
        revoked: Bool, reason: DueReason? = nil
    ) {
        state.withLock { state in
            if let reason, state.summary.usersByReason != nil {
                state.summary.usersByReason![reason.rawValue, default: 0] += 1
            }
            state.summary.permanentlyUnverified = (state.summary.permanentlyUnverified ?? 0) + unverified.permanent
            state.summary.usersProcessed += 1
            for outcome in outcomes { state.summary.outcomes[outcome, default: 0] += 1 }
            for status in appleStatuses {
                state.summary.appleStatuses[status.map(String.init) ?? "none", default: 0] += 1
            }
            if revoked { state.summary.revokedUsers += 1 }
        }
    }

    /// The corrections and flags a written unit recorded.
    func addWritten(corrections: [CorrectionRecord], flags: [PlannedFlag]) {
        state.withLock { state in
            for correction in corrections {
                state.summary.corrections[correction.action, default: [:]][correction.reason, default: 0] += 1
            }
            for flag in flags { state.summary.flags[flag.kind, default: 0] += 1 }
        }
    }

    /// Time one connection spent in PostgreSQL calls.
    func addDatabaseTime(_ seconds: Double) {
        state.withLock { $0.summary.databaseSeconds = ($0.summary.databaseSeconds ?? 0) + seconds }
    }

    /// A copy of the figures so far, with latency percentiles and duration filled in.
    func snapshot() -> RunSummary {
        state.withLock { state in
            var summary = state.summary
            // One count per written receipt, its outcome's: the total is theirs.
            summary.receiptsProcessed = summary.outcomes.values.reduce(0, +)
            summary.latencyP50Milliseconds = state.latencies.percentile(0.50)
            summary.latencyP95Milliseconds = state.latencies.percentile(0.95)
            summary.durationSeconds = Date().timeIntervalSince(started)
            summary.phaseSeconds = phases.figures
            return summary
        }
    }
}
