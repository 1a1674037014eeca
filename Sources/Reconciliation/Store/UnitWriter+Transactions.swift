import AppStoreReceipts
import Foundation
import Postgres

extension UnitWriter {
    /// `recon_transactions` (`JobTables.transactions`), upserted by transaction id. Each run that
    /// records a refund or a reversal adds a `recon_refund_events` row in the same statement, with the
    /// money fields as counted: a reversal's copied from the refund it reverses (`RefundedAmount`).
    func writeTransactions(_ users: [(userID: String, plan: UnitPlan)], contexts: [RowContext], runID: Int64) throws {
        // One original transaction restored on two accounts puts the same transaction id in two users
        // of a batch: the later user's row wins, as it would written one user after the other. Sorted
        // by id, so two writers upserting the same ids lock them in the same order (no deadlock).
        // Records read in place (a copy of one retains and releases its every string).
        let planned = users.map { $0.plan.transactions }
        var all: [RecordIndex] = []
        var ids: [String] = []
        for (user, records) in planned.enumerated() {
            records.withUnsafeBufferPointer { records in
                for index in records.indices {
                    all.append((user, index))
                    ids.append(records[index].transactionID)
                }
            }
        }
        let kept = Self.lastPerKeySorted(keys: ids).map { all[$0] }
        try JobTables.transactions.insert(
            BatchRows(records: planned, contexts: contexts, positions: kept), on: connection,
            prefix: "WITH written AS (",
            suffix: """
                RETURNING transaction_id, cancelled_at, refund_run_id, refund_reversed_run_id, price, currency,
                    environment, is_upgraded, ownership_type, revocation_type, revocation_percentage)
                \(Self.refundEventsSQL(runID: runID))
                """)
    }

    /// The refund events of the rows `written` returns (a CTE of the upsert): a refund this run recorded
    /// first, and a reversal this run recorded of a refund an earlier run recorded, its money fields
    /// copied from that refund's event. A transaction written twice in one run (one original
    /// transaction restored on two accounts) adds its event once.
    static func refundEventsSQL(runID: Int64) -> String {
        """
        INSERT INTO recon_refund_events (run_id, transaction_id, kind, refund_run_id, price, currency, environment,
                                         is_upgraded, ownership_type, revocation_type, revocation_percentage)
        SELECT \(runID), w.transaction_id, 'refund', NULL, w.price, w.currency, w.environment, w.is_upgraded,
               w.ownership_type, w.revocation_type, w.revocation_percentage
        FROM written w WHERE w.cancelled_at IS NOT NULL AND w.refund_run_id = \(runID)
        UNION ALL
        SELECT \(runID), w.transaction_id, 'reversal', e.run_id, e.price, e.currency, e.environment, e.is_upgraded,
               e.ownership_type, e.revocation_type, e.revocation_percentage
        FROM written w
        JOIN recon_refund_events e
          ON e.run_id = w.refund_run_id AND e.transaction_id = w.transaction_id AND e.kind = 'refund'
        WHERE w.refund_reversed_run_id = \(runID)
        ON CONFLICT DO NOTHING
        """
    }
}
