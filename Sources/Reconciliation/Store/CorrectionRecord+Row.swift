import Foundation
import Postgres

/// A `recon_corrections` row read back, one way for every reader (`revert`, `verify-user`'s report and
/// its history).
extension CorrectionRecord {
    /// The columns `init(row:evidence:)` reads, of the table `alias` names in the query: a `SELECT` list.
    static func selectList(_ alias: String) -> String {
        [
            "entitlement", "action", "reason", "before_active", "before_expires_at", "after_active",
            "after_expires_at", "product_id", "original_transaction_id", "reverts_correction_id",
        ].map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// The correction `row` holds (its `selectList` columns); `evidence` as the caller read it, where it
    /// reads it.
    /// - Throws: `PostgresError`; `UnknownVocabularyName` for an action or reason this build cannot read.
    init(row: PostgresRow, evidence: Evidence? = nil) throws {
        self.init(
            entitlement: try row.decode("entitlement"),
            action: try CorrectionAction(contractName: row.decode("action")),
            reason: try CorrectionReason(contractName: row.decode("reason")),
            beforeActive: try row.decode("before_active"), beforeExpiresAt: try row.decode("before_expires_at"),
            afterActive: try row.decode("after_active"), afterExpiresAt: try row.decode("after_expires_at"),
            productID: try row.decode("product_id"), originalTransactionID: try row.decode("original_transaction_id"),
            evidence: evidence, revertsCorrectionID: try row.decode("reverts_correction_id"))
    }
}
