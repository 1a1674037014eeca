import Foundation
import Postgres
import ReconSchema

/// `revert --run ID` (CONTRACT §6, "Undo"): puts every entitlement a run changed back as it was before
/// the run, unless it changed since (`RevertRule`), and records that as a run of kind `revert` whose
/// corrections (reason `reverted`) each name the correction they undo.
///
/// Safe by the same means as a night: the reverted night's shard lock (so no night of that shard runs
/// meanwhile), the users' locks (so `verify-user` never interleaves), and one transaction for every
/// entitlement, every correction row and the run's end, so a kill leaves nothing half done (the run's
/// row stays `running` until the next run marks it `interrupted`). A second revert finds every
/// correction undone already and changes nothing.
public struct RunReverter: Sendable {
    let databaseURL: String?
    let version: String
    let log: EventLog

    public init(databaseURL: String?, version: String, log: EventLog = EventLog()) {
        self.databaseURL = databaseURL
        self.version = version
        self.log = log
    }

    /// Reverts run `runID`; with `dryRun`, records what it would do (corrections with `applied = false`,
    /// as `run --dry-run` does) and changes no entitlement.
    /// - Throws: `RevertRefusal` when nothing was done (no such run, a dry run, a revert, a run or a
    ///   night still going); `RunFailure` when an error ended the revert after its row existed (nothing
    ///   it planned was written); `PostgresError` / `SchemaNotReady` before that.
    public func revert(runID: Int64, dryRun: Bool) throws -> RevertResult {
        let connection = try PostgresConnection(conninfo: databaseURL, applicationName: "receipt-recon revert")
        try SchemaReadiness.require(on: connection, applicationTables: true)
        // Its writes fire the same triggers as a night's: every privilege is tested before the first.
        try PrivilegeWalk.require(on: connection)
        let store = RevertStore(connection: connection)
        guard let found = try store.target(runID) else { throw RevertRefusal.noSuchRun(runID) }
        if found.kind == .revert { throw RevertRefusal.revert(runID, of: found.revertsRunID) }
        if found.dryRun { throw RevertRefusal.dryRun(runID) }
        // A verify-user run belongs to no shard: the users' locks alone keep it apart from any night.
        if found.kind == .nightly, try !connection.tryAdvisoryLock(.nightly(shard: found.shard)) {
            log.log(.warning, "revert.lock_held", ["shard": found.shard, "reverted_run_id": String(runID)])
            throw RevertRefusal.nightGoing(shard: found.shard)
        }
        // A `running` row whose process died is marked `interrupted` first (what it wrote can be reverted);
        // one whose process lives is refused.
        let interrupted = try RunStore(connection: connection).interruptAbandonedRuns()
        if !interrupted.isEmpty {
            log.log(.warning, "run.previous_interrupted", ["runs": interrupted.map(String.init).joined(separator: ",")])
        }
        guard let target = try store.target(runID), target.status != .running else {
            throw RevertRefusal.stillGoing(runID)
        }

        var request = RunRequest()
        request[RunRequest.Key.version] = .text(version)
        let startedAt = Date()
        let revertRunID = try store.start(reverting: target, dryRun: dryRun, request: request)
        log.log(
            .info, "revert.started",
            [
                "run_id": String(revertRunID), "reverted_run_id": String(runID), "shard": target.shard,
                "dry_run": String(dryRun),
            ])
        var summary = RunSummary()
        summary.runID = revertRunID
        summary.kind = .revert
        summary.dryRun = dryRun
        summary.asOf = startedAt
        summary.shard = target.shard
        summary.startedAt = startedAt
        summary.version = version
        summary.revert = RevertFigures(revertedRunID: runID)
        do {
            let result = try connection.transaction {
                try store.lockUsers(of: runID)
                let decisions = try store.candidates(of: runID).map { ($0.correction, RevertRule.decide($0)) }
                var result = RevertResult(summary: summary, decisions: decisions)
                try store.write(result.restored, revertRunID: revertRunID, dryRun: dryRun)
                result.summary = Self.finished(summary, result, startedAt: startedAt)
                try RunStore(connection: connection).finish(
                    runID: revertRunID, status: .completed, exitCode: .success, abortReason: nil,
                    summary: result.summary)
                return result
            }
            log.log(
                .info, "revert.finished",
                [
                    "run_id": String(revertRunID), "reverted_run_id": String(runID), "dry_run": String(dryRun),
                    "restored": String(result.restored.count), "left_alone": String(result.leftAlone.count),
                    "already_reverted": String(result.alreadyReverted.count),
                ])
            return result
        } catch {
            summary.finishedAt = Date()
            summary.durationSeconds = Date().timeIntervalSince(startedAt)
            var failure = RunFailure(error, summary: summary, reason: RunEnd.describe(error))
            // The transaction rolled back: the row records the failure, when the database still answers.
            if let recorded = try? RunStore(connection: connection).recordFailure(failure.summary) {
                failure.summary = recorded
            }
            log.log(.error, "revert.failed", ["run_id": String(revertRunID), "reason": failure.description])
            throw failure
        }
    }

    /// The summary the revert's row records: its corrections by action (reason `reverted`) and its figures.
    static func finished(_ summary: RunSummary, _ result: RevertResult, startedAt: Date) -> RunSummary {
        var summary = summary
        summary.status = .completed
        summary.exitCode = .success
        summary.finishedAt = Date()
        summary.durationSeconds = Date().timeIntervalSince(startedAt)
        for step in result.restored {
            summary.corrections[step.action, default: [:]][.reverted, default: 0] += 1
        }
        summary.usersProcessed = Set(result.restored.map(\.undone.userID)).count
        summary.revokedUsers = Set(result.restored.filter { $0.action == .revoke }.map(\.undone.userID)).count
        summary.revert?.restored = result.restored.count
        summary.revert?.leftAlone = result.leftAlone.count
        summary.revert?.alreadyReverted = result.alreadyReverted.count
        summary.revert?.leftAloneEntries = Array(result.leftAlone.prefix(RevertFigures.storedLimit))
        return summary
    }
}
