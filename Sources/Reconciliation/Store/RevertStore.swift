import Foundation
import Postgres

/// `revert --run ID`'s SQL (CONTRACT §6, "Undo"): the run to undo, its revert run's row, and, inside the
/// revert's one transaction, the users' locks, what `RevertRule` reads, and the writes it decides.
public struct RevertStore {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The run a revert was asked to undo, as `recon_runs` holds it.
    public struct Target: Sendable, Equatable {
        public var id: Int64
        public var kind: RunKind
        public var status: RunStatus
        public var dryRun: Bool
        /// `I/N` of a nightly run; `user` for `verify-user`.
        public var shard: String
        /// Set when the run is itself a revert: the run it undid.
        public var revertsRunID: Int64?
    }

    /// Run `runID`; nil when `recon_runs` has no such run.
    /// - Throws: `PostgresError`; `UnknownVocabularyName` for a row this build cannot read.
    public func target(_ runID: Int64) throws -> Target? {
        guard
            let row = try connection.query(
                "SELECT id, kind, status, dry_run, shard, reverts_run_id FROM recon_runs WHERE id = \(runID)"
            ).first
        else { return nil }
        let kind = try RunKind(contractName: row.decode("kind"))
        return Target(
            id: try row.decode("id"), kind: kind, status: try RunStatus(contractName: row.decode("status")),
            dryRun: try row.decode("dry_run"), shard: kind == .user ? "user" : try row.decode("shard"),
            revertsRunID: try row.decode("reverts_run_id"))
    }

    /// Inserts the revert's `running` row and takes its liveness lock on this store's connection, in one
    /// transaction (as `RunStore.start` does for a night: no other run may see the row before its lock
    /// is held).
    public func start(reverting target: Target, dryRun: Bool, request: RunRequest) throws -> Int64 {
        let optionsJSON = String(decoding: try JSONEncoder.sorted.encode(request), as: UTF8.self)
        return try connection.transaction {
            let id: Int64 = try connection.query(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of, options, shard, reverts_run_id, host, pid)
                VALUES (\(RunKind.revert.rawValue), 'running', \(dryRun), now(), \(PostgresJSON(optionsJSON)),
                        \(target.shard), \(target.id), \(ProcessInfo.processInfo.hostName), \(Int(getpid())))
                RETURNING id
                """
            ).first!.decode("id")
            guard try connection.tryAdvisoryLock(RunStore.lockKey(for: id)) else {
                throw PostgresError(kind: .client, message: "could not take the liveness lock of run \(id)")
            }
            return id
        }
    }

    /// Takes the transaction-scoped lock of every user whose entitlement run `runID` changed, in key order
    /// as `UnitWriter` does, so the revert never interleaves with `verify-user` or a night's writes.
    /// Inside the revert's transaction only.
    public func lockUsers(of runID: Int64) throws {
        let users: [String] = try connection.query(
            "SELECT DISTINCT user_id FROM recon_corrections WHERE run_id = \(runID) AND applied"
        ).map { try $0.decode("user_id") }
        guard !users.isEmpty else { return }
        let keys = Set(users.map { UnitWriter.userLockKey($0).value }).sorted().map(String.init)
        try connection.execute(
            """
            SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest(\(keys)::bigint[]) AS k ORDER BY 1) s
            """)
    }

    /// Every applied correction of run `runID`, in id order, with what `RevertRule` reads about it: the
    /// entitlement's row now (locked FOR UPDATE), the revert that already undid it, and the applied
    /// corrections of the same entitlement written after it. Inside the revert's transaction, after
    /// `lockUsers(of:)`.
    public func candidates(of runID: Int64) throws -> [RevertRule.Candidate] {
        var rows: [String: EntitlementRow] = [:]
        for row in try connection.query(
            """
            SELECT user_id, entitlement, active, expires_at, product_id, original_transaction_id, source, updated_at
            FROM entitlements
            WHERE (user_id, entitlement) IN (
                SELECT user_id, entitlement FROM recon_corrections WHERE run_id = \(runID) AND applied)
            ORDER BY user_id, entitlement FOR UPDATE
            """)
        {
            let userID: String = try row.decode("user_id")
            let entitlement = EntitlementRow(
                entitlement: try row.decode("entitlement"), active: try row.decode("active"),
                expiresAt: try row.decode("expires_at"), productID: try row.decode("product_id"),
                originalTransactionID: try row.decode("original_transaction_id"), source: try row.decode("source"),
                updatedAt: try row.decode("updated_at"))
            rows[Self.key(userID, entitlement.entitlement)] = entitlement
        }
        var later: [Int64: [RevertRule.Later]] = [:]
        for row in try connection.query(
            """
            SELECT c.id AS undone_id, l.id, l.run_id, l.reason, l.reverts_correction_id, l.created_at
            FROM recon_corrections c
            JOIN recon_corrections l
              ON l.user_id = c.user_id AND l.entitlement = c.entitlement AND l.id > c.id AND l.applied
            WHERE c.run_id = \(runID) AND c.applied
            ORDER BY c.id, l.id
            """)
        {
            later[try row.decode("undone_id"), default: []].append(
                RevertRule.Later(
                    id: try row.decode("id"), runID: try row.decode("run_id"),
                    reason: try CorrectionReason(contractName: row.decode("reason")),
                    revertsCorrectionID: try row.decode("reverts_correction_id"),
                    createdAt: try row.decode("created_at")
                ))
        }
        return try connection.query(
            """
            SELECT c.id, c.run_id, c.user_id, \(unescaped: CorrectionRecord.selectList("c")), c.created_at,
                   rv.run_id AS reverted_by_run_id
            FROM recon_corrections c
            LEFT JOIN recon_corrections rv ON rv.reverts_correction_id = c.id AND rv.applied
            WHERE c.run_id = \(runID) AND c.applied
            ORDER BY c.id
            """
        ).map { row in
            let undone = RevertRule.Undone(
                id: try row.decode("id"), runID: try row.decode("run_id"), userID: try row.decode("user_id"),
                record: try CorrectionRecord(row: row), createdAt: try row.decode("created_at"))
            return RevertRule.Candidate(
                correction: undone, current: rows[Self.key(undone.userID, undone.record.entitlement)],
                revertedByRunID: try row.decode("reverted_by_run_id"), later: later[undone.id] ?? [])
        }
    }

    /// Writes the revert's corrections (reason `reverted`, `applied = !dryRun`, each naming the correction
    /// it undoes, with its evidence) and, unless `dryRun`, sets each entitlement to what its correction
    /// row says (`after_active`, `after_expires_at`): the rows just written are the one record of what
    /// changed. Inside the revert's transaction.
    /// - Throws: `PostgresError`, also when an entitlement could not be written (the transaction then
    ///   rolls back whole).
    public func write(_ steps: [RevertRule.Step], revertRunID: Int64, dryRun: Bool) throws {
        guard !steps.isEmpty else { return }
        // A batch's rows of one user each, so that every row carries its own user.
        let writtenAt = Date()
        try JobTables.corrections.insert(
            BatchRows(
                records: steps.map { [$0.record] },
                contexts: steps.map {
                    RowContext(runID: revertRunID, userID: $0.undone.userID, verifiedAt: writtenAt, dryRun: dryRun)
                }, positions: steps.indices.map { ($0, 0) }), on: connection)
        guard !dryRun else { return }
        let updated = try connection.execute(
            """
            UPDATE entitlements e SET active = rv.after_active, expires_at = rv.after_expires_at, updated_at = now()
            FROM recon_corrections rv
            WHERE rv.run_id = \(revertRunID) AND rv.applied
              AND e.user_id = rv.user_id AND e.entitlement = rv.entitlement AND e.source = 'app_store'
            """)
        guard updated == steps.count else {
            throw PostgresError(
                kind: .client,
                message: "revert run \(revertRunID) restored \(updated) entitlements of \(steps.count): nothing was "
                    + "changed; run it again")
        }
    }

    private static func key(_ userID: String, _ entitlement: String) -> String { "\(userID)\u{0}\(entitlement)" }
}

extension RevertRule.Step {
    /// The `reverted` row that undoes `undone`: the entitlement from what the revert found to what it
    /// puts back, with `undone`'s product and transaction.
    var record: CorrectionRecord {
        CorrectionRecord(
            entitlement: undone.record.entitlement, action: action, reason: .reverted, beforeActive: beforeActive,
            beforeExpiresAt: beforeExpiresAt, afterActive: afterActive, afterExpiresAt: afterExpiresAt,
            productID: undone.record.productID, originalTransactionID: undone.record.originalTransactionID,
            evidence: evidence, revertsCorrectionID: undone.id)
    }

    /// `recon_corrections.evidence` of a `reverted` row, in the one evidence encoding: the correction it
    /// undoes, that correction's run and why it was made.
    var evidence: Evidence {
        var evidence = Evidence(rule: CorrectionReason.reverted.rawValue, entitlement: undone.record.entitlement)
        evidence.revertsCorrectionID = undone.id
        evidence.revertsRunID = undone.runID
        evidence.revertsReason = undone.record.reason
        return evidence
    }
}
