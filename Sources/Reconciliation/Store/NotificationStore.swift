import AppStoreReceipts
import Foundation
import Postgres

/// Where a shard set stopped reading Get Notification History: one cursor per shard set (`--shard I/N`
/// counts N), environment and app (`recon_notification_cursor`).
public struct NotificationCursorKey: Sendable, Hashable {
    public var shardCount: Int
    public var environment: AppStoreEnvironment
    public var bundleID: String

    public init(shardCount: Int, environment: AppStoreEnvironment, bundleID: String) {
        self.shardCount = shardCount
        self.environment = environment
        self.bundleID = bundleID
    }

    /// The session lock only one shard of the set holds while it reads Apple's history.
    var lockKey: AdvisoryLockKey {
        AdvisoryLockKey(name: "receipt-recon:notifications:\(shardCount):\(environment.rawValue):\(bundleID)")
    }
}

/// What one `NotificationStore.store` did.
public struct NotificationStoreCounts: Sendable, Equatable {
    /// Notifications stored for the first time.
    public var stored = 0
    /// Notifications the job had already stored (an overlap or a span read again): left as they were.
    public var known = 0
    /// Users the new notifications name (a shared transaction names each holder).
    public var usersNamed = 0
    /// New notifications about a transaction no stored row holds (`notifications_unmatched`).
    public var unmatched = 0
    /// Records without a notification UUID or signed date: nothing to store them under.
    public var unusable = 0

    public init(stored: Int = 0, known: Int = 0, usersNamed: Int = 0, unmatched: Int = 0, unusable: Int = 0) {
        self.stored = stored
        self.known = known
        self.usersNamed = usersNamed
        self.unmatched = unmatched
        self.unusable = unusable
    }
}

/// The notifications the job read from Apple's history, the users they name and the cursor of each
/// shard set (CONTRACT §9 "Notification history"; docs/server-api.md, "Nights within Apple's budget").
///
/// Crash safety: a batch is stored in one transaction with its holders, the cursor moves only after
/// its whole span is stored (`advance`), and `notification_uuid` absorbs a span read twice. A holder
/// is marked handled by `UnitWriter`, in the transaction that writes the user.
///
/// Threading: owns its connection; use it from one thread.
public struct NotificationStore {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    // MARK: - The reader's lock and the cursor

    /// Takes the shard set's session lock for reading Apple's history, waiting at most
    /// `timeoutSeconds`; false when another shard of the set still holds it then. Held until
    /// `unlockReader` or until the connection closes.
    public func lockReader(_ key: NotificationCursorKey, timeoutSeconds: Double) throws -> Bool {
        guard timeoutSeconds > 0 else { return try connection.tryAdvisoryLock(key.lockKey) }
        let milliseconds = Int((timeoutSeconds * 1000).rounded(.up))
        do {
            // A session lock taken inside a transaction outlives its COMMIT; SET LOCAL ends with it, so the
            // connection's own timeouts come back whatever happens.
            try connection.transaction {
                try connection.execute(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(milliseconds)"))
                try connection.execute(
                    PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds + 60_000)"))
                try connection.advisoryLock(key.lockKey)
            }
            return true
        } catch let error as PostgresError where error.sqlState == "55P03" {
            return false
        }
    }

    /// Releases the reader's lock (nothing when this session does not hold it).
    public func unlockReader(_ key: NotificationCursorKey) throws {
        try connection.advisoryUnlock(key.lockKey)
    }

    /// The end of the last span the shard set read whole; nil before its first read.
    public func readThrough(_ key: NotificationCursorKey) throws -> Date? {
        try connection.query(
            """
            SELECT read_through FROM recon_notification_cursor
            WHERE shard_count = \(key.shardCount) AND environment = \(key.environment.rawValue)
              AND bundle_id = \(key.bundleID)
            """
        ).first?.decode("read_through")
    }

    /// Records that every notification signed before `to` is stored: call it only once the whole span
    /// up to `to` is.
    public func advance(_ key: NotificationCursorKey, to readThrough: Date, runID: Int64) throws {
        try connection.execute(
            """
            INSERT INTO recon_notification_cursor (shard_count, environment, bundle_id, read_through, last_run_id)
            VALUES (\(key.shardCount), \(key.environment.rawValue), \(key.bundleID), \(readThrough), \(runID))
            ON CONFLICT (shard_count, environment, bundle_id) DO UPDATE
                SET read_through = EXCLUDED.read_through, last_run_id = EXCLUDED.last_run_id, updated_at = now()
            """)
    }

    // MARK: - Notifications and their holders

    /// A notification about a purchase no stored row holds (`notifications_unmatched`): one without a
    /// transaction (TEST, a summary) names no purchase to miss. `table`: the alias to qualify columns with.
    static func unmatched(_ table: String = "recon_notifications") -> String {
        "\(table).user_id IS NULL AND (\(table).transaction_id IS NOT NULL OR \(table).original_transaction_id IS NOT NULL)"
    }

    /// Stores `notifications` in one transaction: each new one with the users holding its transaction
    /// (`recon_notification_users`, pending) and one of them as `user_id` (NULL when nobody holds it);
    /// one already stored is left as it is, holders and marks included.
    public func store(_ notifications: [NotificationRecord], runID: Int64) throws -> NotificationStoreCounts {
        var counts = NotificationStoreCounts()
        var rows: [NotificationRow] = []
        var seen: Set<String> = []
        for notification in notifications {
            guard let row = NotificationRow(notification) else {
                counts.unusable += 1
                continue
            }
            if seen.insert(row.uuid).inserted {
                rows.append(row)
            } else {
                counts.known += 1
            }
        }
        guard !rows.isEmpty else { return counts }
        let json = String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)
        return try connection.transaction {
            let inserted: [String] = try connection.query(
                """
                INSERT INTO recon_notifications (notification_uuid, notification_type, subtype, signed_at, environment,
                    bundle_id, delivery_failed, transaction_id, original_transaction_id, product_id, run_id)
                SELECT v.notification_uuid, v.notification_type, v.subtype, v.signed_at, v.environment, v.bundle_id,
                       v.delivery_failed, v.transaction_id, v.original_transaction_id, v.product_id, \(runID)
                FROM jsonb_to_recordset(\(PostgresJSON(json))) AS v(notification_uuid text, notification_type text,
                    subtype text, signed_at timestamptz, environment text, bundle_id text, delivery_failed boolean,
                    transaction_id text, original_transaction_id text, product_id text)
                ON CONFLICT (notification_uuid) DO NOTHING
                RETURNING notification_uuid
                """
            ).map { try $0.decode("notification_uuid") }
            counts.stored = inserted.count
            counts.known += rows.count - inserted.count
            counts.usersNamed = try resolveHolders(of: inserted)
            counts.unmatched = try connection.query(
                """
                SELECT count(*) AS n FROM recon_notifications
                WHERE notification_uuid = ANY(\(inserted)) AND \(unescaped: Self.unmatched())
                """
            ).first!.decode("n")
            return counts
        }
    }
}
