import Foundation
import Postgres

extension UnitWriter {
    /// What a batch's users mean for the notifications and the sweep, in the batch's transaction (so
    /// a user's notifications are handled exactly when the user's write commits, CONTRACT §6):
    /// - a conclusive user's pending notifications are handled by this run, and the user counts as
    ///   verified whole at `verifiedAt` (the instant `recon_receipt_state.last_verified_at` gets);
    /// - an inconclusive user keeps both; one the sweep does not know yet enters it at the epoch, "never
    ///   verified whole", so the sweep takes them first instead of never (their rows now have a state,
    ///   so they are not `new` any more).
    func writeVerifiedWhole(_ users: [(userID: String, conclusive: Bool)], runID: Int64, verifiedAt: Date) throws {
        let settled = Set(users.filter(\.conclusive).map(\.userID)).sorted()
        let unsettled = Set(users.filter { !$0.conclusive }.map(\.userID)).subtracting(settled).sorted()
        if !settled.isEmpty {
            try connection.execute(
                """
                UPDATE recon_notification_users SET handled_run_id = \(runID)
                WHERE user_id = ANY(\(settled)) AND handled_run_id IS NULL
                """)
            try connection.execute(
                """
                INSERT INTO recon_user_state (user_id, verified_at, last_run_id)
                SELECT u, \(verifiedAt), \(runID) FROM unnest(\(settled)::text[]) AS u
                ON CONFLICT (user_id) DO UPDATE SET verified_at = EXCLUDED.verified_at, last_run_id = EXCLUDED.last_run_id
                """)
        }
        if !unsettled.isEmpty {
            try connection.execute(
                """
                INSERT INTO recon_user_state (user_id, verified_at, last_run_id)
                SELECT u, to_timestamp(0), NULL FROM unnest(\(unsettled)::text[]) AS u
                ON CONFLICT (user_id) DO NOTHING
                """)
        }
    }
}
