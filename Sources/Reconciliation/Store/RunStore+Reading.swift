import Foundation
import Postgres

/// Reading `recon_runs`: what `report` and `export` ask of the runs the job recorded.
extension RunStore {
    /// A run's row as `report --run` reads it.
    public enum Recorded {
        /// The run has finished and recorded its summary.
        case summary(RunSummary)
        /// The run has no summary yet: it is still going, or ended without one; its stored status.
        case unfinished(status: String)
    }

    /// Run `runID`'s summary; nil when `recon_runs` has no such run.
    /// - Throws: `PostgresError`; `DecodingError` for a summary this build cannot read.
    public func recorded(_ runID: Int64) throws -> Recorded? {
        guard let row = try connection.query("SELECT status, summary FROM recon_runs WHERE id = \(runID)").first
        else { return nil }
        guard let text: PostgresJSON = try row.decode("summary") else {
            return .unfinished(status: try row.decode("status"))
        }
        return .summary(try JSONDecoder.sorted.decode(RunSummary.self, from: Data(text.text.utf8)))
    }

    /// Whether `recon_runs` holds run `runID`.
    public func exists(_ runID: Int64) throws -> Bool {
        try connection.query("SELECT EXISTS (SELECT 1 FROM recon_runs WHERE id = \(runID)) AS present").first!
            .decode("present")
    }

    /// Whether run `runID` was a dry run; nil when `recon_runs` has no such run.
    public func isDryRun(_ runID: Int64) throws -> Bool? {
        try connection.query("SELECT dry_run FROM recon_runs WHERE id = \(runID)").first?.decode("dry_run")
    }

    /// The summaries of the last `count` nightly runs up to run `runID`, newest first: the HTML report's
    /// chart. One that no longer decodes is skipped.
    public func nightlySummaries(upTo runID: Int64, count: Int = 30) throws -> [RunSummary] {
        try connection.query(
            """
            SELECT summary FROM recon_runs
            WHERE kind = 'nightly' AND summary IS NOT NULL AND id <= \(runID) ORDER BY id DESC LIMIT \(count)
            """
        ).compactMap { row -> RunSummary? in
            guard let text: PostgresJSON = try row.decode("summary") else { return nil }
            return try? JSONDecoder.sorted.decode(RunSummary.self, from: Data(text.text.utf8))
        }
    }

    /// The newest `limit` runs of `recon_runs`, newest first.
    /// - Throws: `PostgresError`; `UnknownVocabularyName` for a row this build cannot read.
    public func list(limit: Int) throws -> RunList {
        let rows = try connection.query(
            """
            SELECT id, kind, dry_run, status, shard, started_at, finished_at, corrections, exit_code, abort_reason,
                   greatest(0, unverified - coalesce((summary->>'permanentlyUnverified')::int, 0)) AS transient,
                   options->>'backend' AS backend,
                   coalesce(summary->>'version', options->>'version') AS version
            FROM recon_runs ORDER BY id DESC LIMIT \(limit)
            """)
        return RunList(
            entries: try rows.map { row in
                let kind = try RunKind(contractName: row.decode("kind"))
                let status = try RunStatus(contractName: row.decode("status"))
                return RunList.Entry(
                    runID: try row.decode("id"), kind: kind, dryRun: try row.decode("dry_run"), status: status,
                    backend: try row.decode("backend"), version: try row.decode("version"),
                    shard: kind == .user ? "user" : try row.decode("shard"),
                    startedAt: try row.decode("started_at"), finishedAt: try row.decode("finished_at"),
                    corrections: status == .running ? nil : try row.decode("corrections", as: Int.self),
                    exitCode: try row.decode("exit_code"),
                    reason: RunList.reason(
                        abortReason: try row.decode("abort_reason"), status: status,
                        transientlyUnverified: try row.decode("transient", as: Int.self)))
            })
    }

    /// `report --last`: the newest nightly run of any shard that is complete (status `completed`, or
    /// `partial`: it went through every due user and only some receipts stayed unverified, exit 1, a
    /// normal night) and was not a dry run. Runs that a breaker, an error or a signal stopped, runs still
    /// going and dry runs are skipped: `report --list` shows them and `report --run ID` reports one.
    public func lastCompleteNightlyRunID() throws -> Int64? {
        try connection.query(
            """
            SELECT id FROM recon_runs
            WHERE kind = 'nightly' AND NOT dry_run AND status IN ('completed', 'partial') AND summary IS NOT NULL
            ORDER BY id DESC LIMIT 1
            """
        ).first?.decode("id")
    }
}
