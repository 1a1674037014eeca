import Foundation
import Postgres

/// Stage 5, finish: the end-of-run flags that need every user of the run (`shared_transaction`,
/// `entitlement_without_receipt`), the run's `RunEnd`, and its row in `recon_runs`. This is the one
/// place a run that got this far is given its status and exit code.
///
/// Threading: the run's own thread, after every other stage has finished; uses the run row's
/// connection.
struct RunFinish {
    let runID: Int64
    let kind: RunKind
    let options: RunOptions
    let log: EventLog
    /// Finishing work on a connection of its own, waited for before the figures are counted.
    var beside: BesideTheFinish?

    /// Finishes the run on the run row's connection (`locks`). A row that cannot be written (the database
    /// gone, read-only or full) ends the run `unrecorded`: as its stop decided, or as failed, and the next
    /// run marks the row interrupted. A row another run took ends this one `interrupted`, without writing.
    /// - Parameter subjectUserID: `verify-user`'s user (its flags are scanned alone).
    /// - Throws: `RunFailure` with the run's figures so far when the database fails meanwhile otherwise.
    func finish(
        counters: RunCounters, control: RunControl, locks: RunLocks, subjectUserID: String?
    ) throws -> RunOutcome {
        // Whatever ends the finish, nothing it started outlives it.
        defer { beside?.wait() }
        do {
            return try locks.withConnection { connection in
                try finish(
                    counters: counters, control: control, store: RunStore(connection: connection),
                    subjectUserID: subjectUserID)
            }
        } catch let error as PostgresError where error.isUnavailable {
            log.log(.error, "run.finish_failed", ["run_id": String(runID), "error": error.description])
            let stop = control.stopDecision
            let end = RunEnd.unrecorded(
                status: stop?.recordedStatus ?? .failed,
                reason: (stop?.reason.map { $0 + "; " } ?? "")
                    + "the run's row could not be written: \(error.description)")
            return ended(end, counters: counters)
        } catch let lost as RunLocks.Lost {
            // The other run owns the row and the shard now: this one ends without writing (CONTRACT §6).
            log.log(.warning, "run.lock_lost", ["run_id": String(runID), "reason": lost.description])
            return ended(.interrupted(reason: lost.description), counters: counters)
        }
    }

    /// Finishes the run with its row's `store`.
    func finish(
        counters: RunCounters, control: RunControl, store: RunStore, subjectUserID: String?
    ) throws -> RunOutcome {
        let finalizer = RunFinalizer(connection: store.connection)
        let stop = control.stopDecision
        // The scans first, while what runs beside them (`beside`) goes on; the figures are counted once
        // both are done, and a scan's failure is thrown with them.
        let scanned = Result { () throws in
            if stop != nil {
                // A stopped run saw only some users: the scans would flag from half the picture.
                try finalizer.deleteScratchRows(runID: runID)
            } else {
                _ = try finalizer.flagSharedTransactions(runID: runID)
                _ = try finalizer.flagEntitlementsWithoutReceipt(
                    runID: runID, shardIndex: options.shardIndex, shardCount: options.shardCount,
                    userID: subjectUserID)
            }
        }
        beside?.wait()
        var summary = counters.snapshot()
        // The counters of a run that was not stopped are what committed: every batch did.
        let end = stop ?? .ranToTheEnd(unverified: summary.transientlyUnverified)
        summary.record(end)
        do {
            try scanned.get()
            summary.settleFigures(with: try finalizer.writtenFigures(runID: runID), ranToTheEnd: stop == nil)
            // The run row's own connection: start, lock, finishing (the last write is not counted).
            summary.databaseSeconds = (summary.databaseSeconds ?? 0) + store.connection.secondsWaited
            summary.finishedAt = Date()
            counters.phases.end(.finish)
            summary.phaseSeconds = counters.phases.figures
            try store.finish(
                runID: runID, status: summary.status, exitCode: end.exitCode, abortReason: summary.abortReason,
                summary: summary)
        } catch {
            summary.finishedAt = Date()
            let failed = "finishing the run failed: \(RunEnd.describe(error))"
            throw RunFailure(error, summary: summary, reason: stop?.reason.map { "\($0); \(failed)" } ?? failed)
        }
        log.log(
            end == .completed || end == .partial ? .info : .warning, "run.finished",
            [
                "run_id": String(runID), "status": summary.status.rawValue,
                "exit_code": String(end.exitCode.rawValue), "receipts": String(summary.receiptsProcessed),
                "corrections": String(summary.correctionCount), "unverified": String(summary.unverified),
                "reason": summary.abortReason ?? "",
            ])
        return RunOutcome(summary: summary, end: end)
    }

    /// The outcome of a run whose row this process could not write: its figures as counted.
    private func ended(_ end: RunEnd, counters: RunCounters) -> RunOutcome {
        beside?.wait()
        var summary = counters.snapshot()
        summary.record(end)
        return RunOutcome(summary: summary, end: end)
    }
}

/// How a run ended: its `RunEnd` and its summary (which records that end; empty when no row existed).
public struct RunOutcome: Sendable {
    public var summary: RunSummary
    public let end: RunEnd

    public init(summary: RunSummary, end: RunEnd) {
        self.summary = summary
        self.end = end
    }

    public var exitCode: ExitCode { end.exitCode }
}
