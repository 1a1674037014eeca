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
    func finish(counters: RunCounters, control: RunControl, subjectUserID: String?) throws -> RunOutcome {
        let finalizer = RunFinalizer(connection: store.connection)
        var summary = counters.snapshot()
        let status: RunStatus
        let exitCode: ExitCode
        var reason: String?
        if let stop = control.stopDecision {
            (status, exitCode, reason) = (stop.status, stop.exitCode, stop.reason)
            // A stopped run saw only some users: the scans would flag from half the picture.
            _ = try finalizer.flagSharedTransactions(runID: runID, flag: false)
        } else {
            _ = try finalizer.flagSharedTransactions(runID: runID, flag: true)
            _ = try finalizer.flagEntitlementsWithoutReceipt(
                runID: runID, shardIndex: options.shardIndex, shardCount: options.shardCount, userID: subjectUserID)
            status = summary.unverified > 0 ? .partial : .completed
            exitCode = summary.unverified > 0 ? .someUnverified : .success
        }
        let written = try finalizer.writtenFigures(runID: runID)
        // The run row's own connection: start, lock, finishing (the last write is not counted).
        summary.databaseSeconds = (summary.databaseSeconds ?? 0) + store.connection.secondsWaited
        summary.corrections = written.corrections
        summary.flags = written.flags
        summary.status = status
        summary.exitCode = exitCode
        summary.abortReason = reason
        summary.finishedAt = Date()
        try store.finish(runID: runID, status: status, exitCode: exitCode, abortReason: reason, summary: summary)
        log.log(
            status == .completed || status == .partial ? .info : .warning, "run.finished",
            [
                "run_id": String(runID), "status": status.rawValue, "exit_code": String(exitCode.rawValue),
                "receipts": String(summary.receiptsProcessed), "corrections": String(summary.correctionCount),
                "unverified": String(summary.unverified), "reason": reason ?? "",
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
