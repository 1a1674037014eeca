import Foundation
import Postgres

/// Stage 5, finish: the end-of-run flags that need every user of the run (`shared_transaction`,
/// `entitlement_without_receipt`), the run's status and exit code, and its row in `recon_runs`.
///
/// Threading: the run's own thread, after every other stage has finished; uses the run row's
/// connection.
struct RunFinish {
    let runID: Int64
    let kind: RunKind
    let options: RunOptions
    let store: RunStore
    let log: EventLog

    /// Finishes the run. - Parameter subjectUserID: `verify-user`'s user (its flags are scanned alone).
    /// - Throws: `RunFailure` with the run's figures so far when the database fails meanwhile.
    func finish(counters: RunCounters, control: RunControl, subjectUserID: String?) throws -> RunOutcome {
        let finalizer = RunFinalizer(connection: store.connection)
        var summary = counters.snapshot()
        let stop = control.stopDecision
        let exitCode: ExitCode
        if let stop {
            (summary.status, exitCode, summary.abortReason) = (stop.status, stop.exitCode, stop.reason)
        } else {
            // The counters of a run that was not stopped are what committed: every batch did.
            summary.status = summary.unverified > 0 ? .partial : .completed
            exitCode = summary.unverified > 0 ? .someUnverified : .success
        }
        summary.exitCode = exitCode
        do {
            if stop != nil {
                // A stopped run saw only some users: the scans would flag from half the picture.
                _ = try finalizer.flagSharedTransactions(runID: runID, flag: false)
            } else {
                _ = try finalizer.flagSharedTransactions(runID: runID, flag: true)
                _ = try finalizer.flagEntitlementsWithoutReceipt(
                    runID: runID, shardIndex: options.shardIndex, shardCount: options.shardCount,
                    userID: subjectUserID)
            }
            summary.settleFigures(with: try finalizer.writtenFigures(runID: runID), ranToTheEnd: stop == nil)
            // The run row's own connection: start, lock, finishing (the last write is not counted).
            summary.databaseSeconds = (summary.databaseSeconds ?? 0) + store.connection.secondsWaited
            summary.finishedAt = Date()
            try store.finish(
                runID: runID, status: summary.status, exitCode: exitCode, abortReason: summary.abortReason,
                summary: summary)
        } catch {
            summary.finishedAt = Date()
            let failed = "finishing the run failed: \(RunFailure.describe(error))"
            throw RunFailure(error, summary: summary, reason: stop.map { "\($0.reason); \(failed)" } ?? failed)
        }
        log.log(
            summary.status == .completed || summary.status == .partial ? .info : .warning, "run.finished",
            [
                "run_id": String(runID), "status": summary.status.rawValue,
                "exit_code": String(exitCode.rawValue), "receipts": String(summary.receiptsProcessed),
                "corrections": String(summary.correctionCount), "unverified": String(summary.unverified),
                "reason": summary.abortReason ?? "",
            ])
        return RunOutcome(summary: summary, exitCode: exitCode)
    }
}

/// How a run ended.
public struct RunOutcome: Sendable {
    public var summary: RunSummary
    public var exitCode: ExitCode
    /// Set when the nightly lock was held by another run: nothing was done, no run row exists.
    public var lockHeld = false
}
