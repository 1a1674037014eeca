import Foundation
import Postgres

/// `recon_runs`: creating a run, recognising runs whose process died, and recording how a run ended.
///
/// Every live run holds a session advisory lock named after its id (`lockKey(for:)`) on its lock
/// connection. A `running` row whose lock can be taken has no live owner, wherever that owner ran,
/// and is marked `interrupted`.
public struct RunStore {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    public static func lockKey(for runID: Int64) -> AdvisoryLockKey {
        AdvisoryLockKey(name: "receipt-recon:run:\(runID)")
    }

    /// Marks `running` rows without a live owner as `interrupted`, with their figures rebuilt from
    /// the rows they wrote; returns their ids.
    @discardableResult
    public func interruptAbandonedRuns() throws -> [Int64] {
        let candidates: [Int64] = try connection.query("SELECT id FROM recon_runs WHERE status = 'running' ORDER BY id")
            .map { try $0.decode("id") }
        var interrupted: [Int64] = []
        for id in candidates where try connection.tryAdvisoryLock(Self.lockKey(for: id)) {
            defer { _ = try? connection.advisoryUnlock(Self.lockKey(for: id)) }
            if try recoverAbandoned(id) { interrupted.append(id) }
        }
        return interrupted
    }

    /// Ends a run whose process died: the process never wrote its figures, so they come from its rows.
    /// Its Apple traffic and what it selected are not known and stay 0. False when another process
    /// recovered it first.
    private func recoverAbandoned(_ runID: Int64) throws -> Bool {
        try connection.transaction {
            guard
                let row = try connection.query(
                    """
                    SELECT kind, dry_run, as_of, shard, started_at, receipts_selected, abort_reason, now() AS now,
                           options->>'backend' AS backend, options->>'version' AS version
                    FROM recon_runs WHERE id = \(runID) AND status = 'running' FOR UPDATE
                    """
                ).first
            else { return false }
            var summary = RunSummary()
            summary.runID = runID
            summary.kind = try RunKind(contractName: row.decode("kind"))
            summary.status = .interrupted
            summary.dryRun = try row.decode("dry_run")
            summary.asOf = try row.decode("as_of")
            summary.shard = summary.kind == .user ? "user" : try row.decode("shard")
            summary.startedAt = try row.decode("started_at")
            summary.finishedAt = try row.decode("now")
            summary.receiptsSelected = try row.decode("receipts_selected")
            summary.backend = try row.decode("backend")
            summary.version = try row.decode("version")
            summary.abortReason =
                try row.decode("abort_reason", as: String?.self)
                ?? "the process running it ended without finishing; its figures are counted from the rows it wrote"
            let written = try RunFinalizer(connection: connection).writtenFigures(runID: runID)
            summary.settleFigures(with: written, ranToTheEnd: false)
            // How long it worked, as far as its rows tell: from its start to the last row it wrote.
            summary.durationSeconds = max(
                0, (written.lastWrittenAt ?? summary.startedAt).timeIntervalSince(summary.startedAt))
            // The shared-transaction scan it never reached leaves its scratch rows behind.
            try RunFinalizer(connection: connection).deleteScratchRows(runID: runID)
            try record(summary)
            return true
        }
    }

    /// Inserts a `running` row and takes its liveness lock on this store's connection, in one
    /// transaction: another run starting at the same moment (another shard, `verify-user`) must never
    /// see the row before its lock is held, or it takes the row for abandoned. `request` becomes the row's
    /// `options`; a row written without one (tests) records none.
    public func start(
        kind: RunKind, options: RunOptions, request: RunRequest = RunRequest(), subjectUserID: String? = nil
    ) throws -> Int64 {
        let optionsJSON = String(decoding: try JSONEncoder.sorted.encode(request), as: UTF8.self)
        return try connection.transaction {
            let id: Int64 = try connection.query(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of, options, shard, subject_user_id, host, pid)
                VALUES (\(kind.rawValue), 'running', \(options.dryRun), \(options.nightInstant), \(PostgresJSON(optionsJSON)),
                        \(options.shard), \(subjectUserID), \(ProcessInfo.processInfo.hostName), \(Int(getpid())))
                RETURNING id
                """
            ).first!.decode("id")
            // A session lock: it outlives the transaction's COMMIT.
            guard try connection.tryAdvisoryLock(Self.lockKey(for: id)) else {
                throw PostgresError(kind: .client, message: "could not take the liveness lock of run \(id)")
            }
            return id
        }
    }

    /// Records the end of a run: status, exit code, reason and the full summary.
    public func finish(runID: Int64, status: RunStatus, exitCode: ExitCode, abortReason: String?, summary: RunSummary)
        throws
    {
        var summary = summary
        summary.runID = runID
        summary.status = status
        summary.exitCode = exitCode
        summary.abortReason = abortReason
        try record(summary)
    }

    /// Records the end of a run that an error ended after its row existed, unless the row was finished
    /// already: the summary's status, exit code and reason, with its figures from the run's rows.
    /// - Returns: the summary the row now holds.
    public func recordFailure(_ summary: RunSummary) throws -> RunSummary {
        try connection.transaction {
            let row = try connection.query(
                "SELECT status, summary FROM recon_runs WHERE id = \(summary.runID) FOR UPDATE"
            ).first
            guard let row, try row.decode("status", as: String.self) == RunStatus.running.rawValue else {
                if let stored = try row?.decode("summary", as: PostgresJSON?.self) {
                    return try JSONDecoder.sorted.decode(RunSummary.self, from: Data(stored.text.utf8))
                }
                return summary
            }
            var recorded = summary
            recorded.settleFigures(
                with: try RunFinalizer(connection: connection).writtenFigures(runID: summary.runID), ranToTheEnd: false)
            try RunFinalizer(connection: connection).deleteScratchRows(runID: summary.runID)
            try record(recorded)
            return recorded
        }
    }

    /// Writes the summary's status, exit code (NULL when no process lived to exit), reason, the summary
    /// itself and its count columns into the run's row.
    private func record(_ summary: RunSummary) throws {
        let summaryJSON = String(decoding: try JSONEncoder.sorted.encode(summary), as: UTF8.self)
        try connection.execute(
            """
            UPDATE recon_runs SET status = \(summary.status.rawValue), finished_at = now(),
                   exit_code = \(summary.exitCode.map { Int($0.rawValue) }),
                   abort_reason = \(summary.abortReason), summary = \(PostgresJSON(summaryJSON)),
                   \(unescaped: Self.countAssignments(summary))
            WHERE id = \(summary.runID)
            """)
    }

    /// The count columns, from integers this program computed (never from input), so splicing is safe.
    private static func countAssignments(_ summary: RunSummary) -> String {
        let columns: [(String, Int)] = [
            ("receipts_selected", summary.receiptsSelected), ("receipts_processed", summary.receiptsProcessed),
            ("users_processed", summary.usersProcessed), ("valid", summary.outcomes[.valid, default: 0]),
            ("misrouted", summary.outcomes[.misrouted, default: 0]),
            ("invalid", summary.outcomes[.invalid, default: 0]),
            ("unverified", summary.outcomes[.unverified, default: 0]), ("corrections", summary.correctionCount),
            ("revoked_users", summary.revokedUsers), ("flags", summary.flagCount),
            ("apple_requests", summary.appleRequests), ("apple_retries", summary.appleRetries),
            ("apple_throttled", summary.appleThrottled),
        ]
        return columns.map { "\($0.0) = \($0.1)" }.joined(separator: ", ")
    }
}

extension JSONEncoder {
    /// Sorted keys and ISO 8601 dates: stable JSON for `recon_runs.options` and `summary`.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    /// Reads what `JSONEncoder.sorted` wrote.
    static var sorted: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
