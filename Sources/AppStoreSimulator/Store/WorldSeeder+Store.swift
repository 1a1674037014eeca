import AppStoreReceipts
import Foundation
import Postgres

/// Every statement the simulator sends to the job's database, as its world's store: what the seed
/// checks and writes beside its COPYs, and what the demo changes.
extension WorldSeeder {
    /// The application tables a seed fills, in the order it checks them.
    package static let seededTables = ["products", "receipts", "entitlements", "sandbox_testers"]

    /// The first of the seeded tables that exists and holds a row; nil for a database that may be seeded.
    package static func firstNonEmptyTable(on connection: PostgresConnection) throws -> String? {
        for table in seededTables {
            let exists: Bool =
                try connection.query("SELECT to_regclass(\(table)) IS NOT NULL AS present").first?.decode(
                    "present") ?? false
            guard exists else { continue }
            let rows: Bool =
                try connection.query("SELECT EXISTS (SELECT 1 FROM \(unescaped: table)) AS present")
                .first?.decode("present") ?? false
            if rows { return table }
        }
        return nil
    }

    /// The first seeded table that holds a row (every one exists: the database is migrated).
    static func firstFilledTable(on connection: PostgresConnection) throws -> String? {
        for table in seededTables {
            let rows = try connection.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(table))"))
            if try rows.first?.decode(at: 0, as: Bool.self) == true { return table }
        }
        return nil
    }

    /// Moves the receipts' id sequence past the explicit ids a seed wrote, so the app's next receipt
    /// gets a new id.
    static func moveReceiptSequence(toFollow nextReceiptID: Int64, on connection: PostgresConnection) throws {
        _ = try connection.query(
            "SELECT setval(pg_get_serial_sequence('receipts', 'id'), \(max(1, nextReceiptID - 1)), \(nextReceiptID > 1))"
        )
    }

    /// How many seeded receipts are StoreKit 2 signed transactions (a JWS, whose header is `eyJ…`).
    package static func signedReceiptCount(on connection: PostgresConnection) throws -> Int {
        try connection.query("SELECT count(*)::int AS n FROM receipts WHERE receipt_data LIKE 'eyJ%'").first?.decode(
            "n") ?? 0
    }

    /// Switches one App Store entitlement off, as an app bug would: the drift a support case starts from.
    package static func switchOff(entitlement: String, of userID: String, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            UPDATE entitlements SET active = false, updated_at = now()
            WHERE user_id = \(userID) AND entitlement = \(entitlement) AND source = 'app_store'
            """)
    }

    /// The previous run of an incremental world: a completed nightly run seen at `asOf` (`since`).
    static func insertPreviousRun(asOf: Date, on connection: PostgresConnection) throws -> Int64 {
        let rows = try connection.query(
            """
            INSERT INTO recon_runs (kind, status, dry_run, as_of, started_at, finished_at, shard, exit_code)
            VALUES ('nightly', 'completed', false, \(asOf), \(asOf), \(asOf), '0/1', 0)
            RETURNING id
            """)
        return try rows.first!.decode("id")
    }

    /// The job's rows of an incremental world's batch.
    static func copyJobState(_ state: IncrementalJobState, on connection: PostgresConnection) throws {
        _ = try connection.copy(
            into: "recon_receipt_state", columns: IncrementalJobState.receiptStateColumns, rows: state.receiptStates)
        _ = try connection.copy(
            into: "recon_user_state", columns: IncrementalJobState.userStateColumns, rows: state.userStates)
        _ = try connection.copy(
            into: "recon_transactions", columns: IncrementalJobState.transactionColumns, rows: state.transactions)
    }

    /// Where the previous run stopped reading the notification history: one shard, the app's bundle.
    static func insertCursor(
        environment: AppStoreEnvironment, readThrough: Date, runID: Int64, on connection: PostgresConnection
    ) throws {
        try connection.execute(
            """
            INSERT INTO recon_notification_cursor (shard_count, environment, bundle_id, read_through, last_run_id)
            VALUES (1, \(environment.rawValue), \(WorldCatalog.appBundleID), \(readThrough), \(runID))
            """)
    }
}
