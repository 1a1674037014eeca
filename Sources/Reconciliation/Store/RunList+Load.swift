import Postgres

extension RunList {
    /// The newest `limit` runs of `recon_runs`, newest first.
    /// - Throws: `PostgresError`; `UnknownVocabularyName` for a row this build cannot read.
    public static func load(limit: Int, from connection: PostgresConnection) throws -> RunList {
        let rows = try connection.query(
            """
            SELECT id, kind, dry_run, status, shard, started_at, finished_at, corrections, exit_code,
                   options->>'backend' AS backend,
                   coalesce(summary->>'version', options->>'version') AS version
            FROM recon_runs ORDER BY id DESC LIMIT \(limit)
            """)
        return RunList(
            entries: try rows.map { row in
                let kind = try RunKind(contractName: row.decode("kind"))
                let status = try RunStatus(contractName: row.decode("status"))
                return Entry(
                    runID: try row.decode("id"), kind: kind, dryRun: try row.decode("dry_run"), status: status,
                    backend: try row.decode("backend"), version: try row.decode("version"),
                    shard: kind == .user ? "user" : try row.decode("shard"),
                    startedAt: try row.decode("started_at"), finishedAt: try row.decode("finished_at"),
                    corrections: status == .running ? nil : try row.decode("corrections", as: Int.self),
                    exitCode: try row.decode("exit_code"))
            })
    }

    /// `report --last`: the newest nightly run of any shard that is complete (status `completed`, or
    /// `partial`: it went through every due user and only some receipts stayed unverified, exit 1, a
    /// normal night) and was not a dry run. Runs that a breaker, an error or a signal stopped, runs still
    /// going and dry runs are skipped: `report --list` shows them and `report --run ID` reports one.
    public static func lastCompleteNightlyRunID(from connection: PostgresConnection) throws -> Int64? {
        try connection.query(
            """
            SELECT id FROM recon_runs
            WHERE kind = 'nightly' AND NOT dry_run AND status IN ('completed', 'partial') AND summary IS NOT NULL
            ORDER BY id DESC LIMIT 1
            """
        ).first?.decode("id")
    }
}
