import Postgres

extension RunComparison {
    /// Reads both runs' `recon_corrections` (applied or not: a dry run's plan is its decision) and
    /// `recon_flags`, and compares them.
    /// - Throws: `PostgresError`; `UnknownVocabularyName` for a row this build cannot read.
    public static func load(runA: Int64, runB: Int64, from connection: PostgresConnection) throws -> RunComparison {
        func decisions(_ runID: Int64) throws -> [String: Set<Decision>] {
            var byUser: [String: Set<Decision>] = [:]
            for row in try connection.query(
                "SELECT DISTINCT user_id, entitlement, action, reason FROM recon_corrections WHERE run_id = \(runID)")
            {
                let decision = Decision.correction(
                    entitlement: try row.decode("entitlement"),
                    action: try CorrectionAction(contractName: row.decode("action")),
                    reason: try CorrectionReason(contractName: row.decode("reason")))
                byUser[try row.decode("user_id"), default: []].insert(decision)
            }
            for row in try connection.query("SELECT DISTINCT user_id, kind FROM recon_flags WHERE run_id = \(runID)") {
                let decision = Decision.flag(try FlagKind(contractName: row.decode("kind")))
                byUser[try row.decode("user_id"), default: []].insert(decision)
            }
            return byUser
        }
        return RunComparison(runA: runA, runB: runB, decisionsA: try decisions(runA), decisionsB: try decisions(runB))
    }
}
