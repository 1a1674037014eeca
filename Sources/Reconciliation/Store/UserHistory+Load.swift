import Foundation
import Postgres

extension UserHistory {
    public static func load(userID: String, limit: Int = defaultLimit, on connection: PostgresConnection) throws
        -> UserHistory
    {
        let receipts: Int =
            try connection.query(
                "SELECT count(*)::int AS n FROM receipts WHERE user_id = \(userID)"
            ).first?.decode("n") ?? 0
        let corrections = try connection.query(
            """
            SELECT c.id, c.run_id, r.kind AS run_kind, c.created_at, c.applied,
                   \(unescaped: CorrectionRecord.selectList("c")), c.evidence::text AS evidence,
                   undone.run_id AS reverted_run_id
            FROM recon_corrections c
            JOIN recon_runs r ON r.id = c.run_id
            LEFT JOIN recon_corrections undone ON undone.id = c.reverts_correction_id
            WHERE c.user_id = \(userID)
            ORDER BY c.id DESC
            LIMIT \(limit)
            """
        ).map(correction)
        let lastRunID: Int64? = try connection.query(
            """
            SELECT greatest((SELECT max(run_id) FROM recon_results WHERE user_id = \(userID)),
                            (SELECT max(run_id) FROM recon_flags WHERE user_id = \(userID))) AS run_id
            """
        ).first?.decode("run_id")
        let flags =
            try lastRunID.map { runID in
                try connection.query(
                    """
                    SELECT id, receipt_id, kind, detail, created_at, evidence::text AS evidence FROM recon_flags
                    WHERE run_id = \(runID) AND user_id = \(userID)
                    ORDER BY receipt_id NULLS LAST, id
                    """
                ).map(flag)
            } ?? []
        return UserHistory(
            userID: userID, entitlements: try UnitWriter.entitlements(of: userID, on: connection), receipts: receipts,
            corrections: corrections, lastRunID: lastRunID, flags: flags)
    }

    private static func correction(_ row: PostgresRow) throws -> Correction {
        Correction(
            id: try row.decode("id"), runID: try row.decode("run_id"), runKind: try row.decode("run_kind"),
            createdAt: try row.decode("created_at"), applied: try row.decode("applied"),
            record: try CorrectionRecord(row: row, evidence: Evidence(storedJSON: try row.decode("evidence"))),
            revertedRunID: try row.decode("reverted_run_id"))
    }

    private static func flag(_ row: PostgresRow) throws -> Flag {
        Flag(
            id: try row.decode("id"), receiptID: try row.decode("receipt_id"),
            kind: try FlagKind(contractName: row.decode("kind")), detail: try row.decode("detail") ?? "",
            createdAt: try row.decode("created_at"), evidence: Evidence(storedJSON: try row.decode("evidence")))
    }
}
