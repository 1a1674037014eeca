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

    /// Marks `running` rows without a live owner as `interrupted`; returns their ids.
    @discardableResult
    public func interruptAbandonedRuns() throws -> [Int64] {
        let candidates: [Int64] = try connection.query("SELECT id FROM recon_runs WHERE status = 'running' ORDER BY id")
            .map { try $0.decode("id") }
        var interrupted: [Int64] = []
        for id in candidates where try connection.tryAdvisoryLock(Self.lockKey(for: id)) {
            defer { _ = try? connection.advisoryUnlock(Self.lockKey(for: id)) }
            let changed = try connection.execute(
                """
                UPDATE recon_runs SET status = 'interrupted', finished_at = now(),
                       abort_reason = coalesce(abort_reason, 'the process running it ended without finishing')
                WHERE id = \(id) AND status = 'running'
                """)
            if changed == 1 { interrupted.append(id) }
        }
        return interrupted
    }

    /// Inserts a `running` row and takes its liveness lock on this store's connection.
    public func start(kind: RunKind, options: RunOptions, subjectUserID: String? = nil) throws -> Int64 {
        let optionsJSON = String(decoding: try JSONEncoder.sorted.encode(options), as: UTF8.self)
        let id: Int64 = try connection.query(
            """
            INSERT INTO recon_runs (kind, status, dry_run, as_of, options, shard, subject_user_id, host, pid)
            VALUES (\(kind.rawValue), 'running', \(options.dryRun), \(options.asOf), \(PostgresJSON(optionsJSON)),
                    \(options.shard), \(subjectUserID), \(ProcessInfo.processInfo.hostName), \(Int(getpid())))
            RETURNING id
            """
        ).first!.decode("id")
        guard try connection.tryAdvisoryLock(Self.lockKey(for: id)) else {
            throw PostgresError(kind: .client, message: "could not take the liveness lock of run \(id)")
        }
        return id
    }

    /// Records the end of a run: status, exit code, reason and the full summary.
    public func finish(runID: Int64, status: RunStatus, exitCode: ExitCode, abortReason: String?, summary: RunSummary)
        throws
    {
        let summaryJSON = String(decoding: try JSONEncoder.sorted.encode(summary), as: UTF8.self)
        try connection.execute(
            """
            UPDATE recon_runs SET status = \(status.rawValue), finished_at = now(), exit_code = \(Int(exitCode.rawValue)),
                   abort_reason = \(abortReason), summary = \(PostgresJSON(summaryJSON)),
                   \(unescaped: Self.countAssignments(summary))
            WHERE id = \(runID)
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
