import Postgres

/// What one run wrote, read back: the corrections and unverified rows `verify-user` shows, and
/// whether a batch of users is in (a writer's check after its connection dropped mid-COMMIT).
public struct RunRows {
    let connection: PostgresConnection
    let runID: Int64

    /// The run's corrections, by entitlement.
    func corrections() throws -> [CorrectionRecord] {
        try connection.query(
            """
            SELECT \(unescaped: CorrectionRecord.selectList("c"))
            FROM recon_corrections c WHERE c.run_id = \(runID) ORDER BY c.entitlement
            """
        ).map { try CorrectionRecord(row: $0) }
    }

    /// The run's `unverified` results, by receipt.
    func unverdicted() throws -> [UnverdictedRow] {
        try connection.query(
            """
            SELECT receipt_id, detail FROM recon_results
            WHERE run_id = \(runID) AND outcome = 'unverified' ORDER BY receipt_id
            """
        ).map { row in
            let detail: String = try row.decode("detail") ?? ""
            return UnverdictedRow(
                receiptID: try row.decode("receipt_id"),
                kind: UnverifiedKind(detail: detail),
                detail: detail)
        }
    }

    /// Whether the run holds any result, flag or correction of these users: a batch writes all of a
    /// user's rows in one transaction, so any one row means the whole batch committed.
    func holdsAny(of users: [String]) throws -> Bool {
        try connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM recon_results WHERE run_id = \(runID) AND user_id = ANY(\(users)))
                OR EXISTS (SELECT 1 FROM recon_flags WHERE run_id = \(runID) AND user_id = ANY(\(users)))
                OR EXISTS (SELECT 1 FROM recon_corrections WHERE run_id = \(runID) AND user_id = ANY(\(users)))
                AS written
            """
        ).first!.decode("written")
    }
}

extension RunRows {
    /// One applied correction: which user's entitlement, and what was done to it.
    public struct AppliedCorrection: Hashable, Sendable {
        public let userID: String
        public let entitlement: String
        public let action: String
    }

    /// The corrections run `runID` applied (none for a dry run).
    public static func appliedCorrections(runID: Int64, on connection: PostgresConnection) throws
        -> [AppliedCorrection]
    {
        try connection.query(
            "SELECT user_id, entitlement, action FROM recon_corrections WHERE applied AND run_id = \(runID)"
        ).map {
            AppliedCorrection(
                userID: try $0.decode("user_id"), entitlement: try $0.decode("entitlement"),
                action: try $0.decode("action"))
        }
    }
}
