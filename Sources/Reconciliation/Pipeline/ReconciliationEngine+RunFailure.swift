import Foundation

extension ReconciliationEngine {
    /// The run's stages (`executeStages`) once its row exists. An error from them becomes a
    /// `RunFailure` carrying the run's id and figures, and the row is recorded `failed` with its figures
    /// from the rows the run wrote, where the database still answers; where it does not, the next run
    /// rebuilds the row the same way (`RunStore.interruptAbandonedRuns`).
    func execute(
        runID: Int64, kind: RunKind, locks: RunLocks, reconnector: DatabaseReconnector,
        selection: DueUserSelection, subjectUserID: String?
    ) throws -> RunOutcome {
        do {
            return try executeStages(
                runID: runID, kind: kind, locks: locks, reconnector: reconnector, selection: selection,
                subjectUserID: subjectUserID)
        } catch {
            var failure =
                error as? RunFailure
                ?? RunFailure(
                    error, summary: startingSummary(runID: runID, kind: kind),
                    reason: "the run failed: \(RunEnd.describe(error))")
            // Best effort: with the database gone this fails too.
            let summary = failure.summary
            if let recorded = try? locks.withConnection({ try RunStore(connection: $0).recordFailure(summary) }) {
                failure.summary = recorded
            }
            log.log(
                .error, "run.failed",
                [
                    "run_id": String(runID), "exit_code": String(failure.exitCode.rawValue),
                    "reason": failure.description,
                ])
            throw failure
        }
    }

    /// What is known of a run before it did anything.
    func startingSummary(runID: Int64, kind: RunKind) -> RunSummary {
        var summary = RunSummary()
        summary.runID = runID
        summary.kind = kind
        summary.dryRun = options.dryRun
        summary.asOf = options.nightInstant
        summary.shard = kind == .nightly ? options.shard : "user"
        summary.startedAt = Date()
        summary.backend = request.backend
        summary.version = request.version
        return summary
    }
}
