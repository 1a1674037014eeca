import AppStoreReceipts
import Foundation
import Postgres

/// Who the stored notifications name: the holders of their transactions, read only for a dry run,
/// found late for the unmatched, and the retention of what is handled.
extension NotificationStore {
    /// The users holding the transactions of `notifications`, read only: a dry run's notified users,
    /// for a run that stores neither the notifications nor the cursor.
    public func holders(of notifications: [NotificationRecord]) throws -> Set<String> {
        let rows = notifications.compactMap(NotificationRow.init)
        let originals = rows.compactMap(\.originalTransactionID)
        let transactions = rows.compactMap(\.transactionID)
        guard !originals.isEmpty || !transactions.isEmpty else { return [] }
        return Set(
            try connection.query(
                """
                SELECT DISTINCT user_id FROM recon_transactions
                WHERE original_transaction_id = ANY(\(originals)) OR transaction_id = ANY(\(transactions))
                """
            ).map { try $0.decode("user_id") })
    }

    /// Unmatched notifications received since `receivedSince` whose transaction a stored row now holds
    /// (the app stored the purchase late): their holders are added, pending, and `user_id` set.
    /// - Returns: the notifications matched now.
    public func resolveUnmatched(receivedSince: Date) throws -> Int {
        try connection.transaction {
            let unmatched: [String] = try connection.query(
                """
                SELECT notification_uuid FROM recon_notifications
                WHERE \(unescaped: Self.unmatched()) AND received_at >= \(receivedSince)
                FOR UPDATE
                """
            ).map { try $0.decode("notification_uuid") }
            guard !unmatched.isEmpty else { return 0 }
            try resolveHolders(of: unmatched)
            return try connection.query(
                """
                SELECT count(*) AS n FROM recon_notifications
                WHERE notification_uuid = ANY(\(unmatched)) AND user_id IS NOT NULL
                """
            ).first!.decode("n")
        }
    }

    /// After a run: the notifications it stored unmatched whose transaction a stored row now holds (the
    /// run verified a purchase the app had stored but the job had never seen: a new row) are matched,
    /// and handled at once for the users this run verified whole since it read them.
    /// - Returns: the notifications this run stored that are still unmatched.
    public func matchAfterRun(_ runID: Int64) throws -> Int {
        try connection.transaction {
            let unmatched: [String] = try connection.query(
                """
                SELECT notification_uuid FROM recon_notifications
                WHERE run_id = \(runID) AND \(unescaped: Self.unmatched())
                FOR UPDATE
                """
            ).map { try $0.decode("notification_uuid") }
            guard !unmatched.isEmpty else { return 0 }
            try resolveHolders(of: unmatched)
            try connection.execute(
                """
                UPDATE recon_notification_users n SET handled_run_id = \(runID)
                FROM recon_user_state s
                WHERE n.notification_uuid = ANY(\(unmatched)) AND n.handled_run_id IS NULL
                  AND s.user_id = n.user_id AND s.last_run_id = \(runID)
                """)
            return try connection.query(
                """
                SELECT count(*) AS n FROM recon_notifications
                WHERE notification_uuid = ANY(\(unmatched)) AND user_id IS NULL
                """
            ).first!.decode("n")
        }
    }

    /// Retention: notifications signed before `signedBefore` (Apple keeps 180 days of history) whose
    /// holders are all handled or hold no receipt any more (no run takes them again), or that name
    /// nobody. Their holders' rows go with them.
    /// - Returns: the notifications deleted.
    @discardableResult
    public func deleteExpired(signedBefore: Date) throws -> Int {
        try connection.execute(
            """
            DELETE FROM recon_notifications n
            WHERE n.signed_at < \(signedBefore)
              AND NOT EXISTS (SELECT 1 FROM recon_notification_users u
                              WHERE u.notification_uuid = n.notification_uuid AND u.handled_run_id IS NULL
                                AND EXISTS (SELECT 1 FROM receipts r WHERE r.user_id = u.user_id))
            """)
    }

    /// Names every user holding the transaction of each of `uuids` (by original transaction id or
    /// transaction id in `recon_transactions`), pending, and sets `user_id` to one of them where it is
    /// NULL. Call it inside a transaction. - Returns: the holder rows added.
    @discardableResult
    func resolveHolders(of uuids: [String]) throws -> Int {
        guard !uuids.isEmpty else { return 0 }
        let named = try connection.execute(
            """
            INSERT INTO recon_notification_users (notification_uuid, user_id)
            SELECT DISTINCT n.notification_uuid, t.user_id
            FROM recon_notifications n
            JOIN recon_transactions t
              ON t.original_transaction_id = n.original_transaction_id OR t.transaction_id = n.transaction_id
            WHERE n.notification_uuid = ANY(\(uuids))
            ON CONFLICT DO NOTHING
            """)
        try connection.execute(
            """
            UPDATE recon_notifications n SET user_id = h.user_id
            FROM (SELECT notification_uuid, min(user_id) AS user_id FROM recon_notification_users
                  WHERE notification_uuid = ANY(\(uuids)) GROUP BY notification_uuid) h
            WHERE n.notification_uuid = h.notification_uuid AND n.user_id IS NULL
            """)
        return named
    }
}

/// One `recon_notifications` row as `jsonb_to_recordset` reads it (the keys are the columns).
struct NotificationRow: Encodable {
    let uuid: String
    let type: String
    let subtype: String?
    let signedAt: String
    let environment: String
    let bundleID: String?
    let deliveryFailed: Bool
    let transactionID: String?
    let originalTransactionID: String?
    let productID: String?

    enum CodingKeys: String, CodingKey {
        case uuid = "notification_uuid"
        case type = "notification_type"
        case subtype
        case signedAt = "signed_at"
        case environment
        case bundleID = "bundle_id"
        case deliveryFailed = "delivery_failed"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
    }

    /// nil for a record with nothing to store it under (no UUID, no signed date, no environment).
    init?(_ record: NotificationRecord) {
        guard let uuid = record.uuid, let signed = record.signedDate, let environment = record.environment
        else { return nil }
        self.uuid = uuid
        type = record.type?.rawValue ?? ""
        subtype = record.subtype?.rawValue
        signedAt = PostgresTimestamp.format(signed)
        self.environment = environment.rawValue
        bundleID = record.bundleID
        deliveryFailed = record.deliveryFailed
        transactionID = record.transactionID
        originalTransactionID = record.originalTransactionID
        productID = record.productID
    }
}
