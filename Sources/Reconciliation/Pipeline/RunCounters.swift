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
    }

    private let state: Mutex<State>
    let started = Date()

    init(summary: RunSummary) {
        state = Mutex(State(summary: summary))
    }

    func addSelected(users: Int, receipts: Int) {
        state.withLock {
            $0.summary.usersSelected += users
            $0.summary.receiptsSelected += receipts
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

    /// Apple traffic of one exchange (each distinct receipt once).
    func addTraffic(_ report: AppleTraffic) {
        state.withLock { state in
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

    /// One user's receipts were classified and its corrections planned.
    func addUser(outcomes: [ReceiptOutcome], appleStatuses: [Int?], revoked: Bool) {
        state.withLock { state in
            state.summary.usersProcessed += 1
            state.summary.receiptsProcessed += outcomes.count
            for outcome in outcomes { state.summary.outcomes[outcome, default: 0] += 1 }
            for status in appleStatuses {
                state.summary.appleStatuses[status.map(String.init) ?? "none", default: 0] += 1
            }
            if revoked { state.summary.revokedUsers += 1 }
        }
    }

    /// The corrections and flags a written unit recorded.
    func addWritten(corrections: [PlannedCorrection], flags: [PlannedFlag]) {
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
            summary.latencyP50Milliseconds = state.latencies.percentile(0.50)
            summary.latencyP95Milliseconds = state.latencies.percentile(0.95)
            summary.durationSeconds = Date().timeIntervalSince(started)
            return summary
        }
    }
}
