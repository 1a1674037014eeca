import Postgres

/// Applies `SQL/NNNN_*.sql` in order, each once and in its own transaction, recording each in
/// `recon_schema_migrations`.
///
/// Safe to run again (a no-op when nothing is pending), safe beside another `migrate` (a session
/// advisory lock serialises them), and safe against a database whose application tables already
/// exist (the application-table migration only creates what is missing).
public struct Migrator {
    public let migrations: [Migration]

    public init(migrations: [Migration] = Migration.all) {
        self.migrations = migrations
    }

    /// What `apply` did.
    public struct Report: Sendable, Equatable {
        /// Migrations applied by this call, in order.
        public var applied: [Migration]
        /// Versions that were already recorded before this call.
        public var alreadyApplied: [String]
        /// Versions recorded in the database that this build does not know (a newer binary migrated it).
        public var unknownToThisBuild: [String]
    }

    static let lockKey = AdvisoryLockKey(name: "receipt-recon:migrate")

    /// Applies every pending migration on `connection`.
    /// - Throws: `PostgresError`; a failing migration leaves nothing of itself behind (its transaction
    ///   rolls back) and the ones before it stay applied.
    public func apply(on connection: PostgresConnection) throws -> Report {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS recon_schema_migrations (
                version    text PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        try connection.execute("ALTER TABLE recon_schema_migrations ADD COLUMN IF NOT EXISTS name text")
        try connection.advisoryLock(Self.lockKey)
        defer { _ = try? connection.advisoryUnlock(Self.lockKey) }

        let recorded = try appliedVersions(on: connection)
        var report = Report(
            applied: [],
            alreadyApplied: migrations.map(\.version).filter(recorded.contains),
            unknownToThisBuild: recorded.subtracting(migrations.map(\.version)).sorted()
        )
        for migration in migrations where !recorded.contains(migration.version) {
            try connection.transaction {
                // DDL on a large receipts table can take longer than the session's statement_timeout.
                try connection.execute("SET LOCAL statement_timeout = 0")
                try connection.executeScript(migration.sql)
                try connection.execute(
                    """
                    INSERT INTO recon_schema_migrations (version, name, applied_at)
                    VALUES (\(migration.version), \(migration.name), now())
                    """)
            }
            report.applied.append(migration)
        }
        return report
    }

    /// Versions recorded in `recon_schema_migrations` (empty when the table does not exist).
    public func appliedVersions(on connection: PostgresConnection) throws -> Set<String> {
        let exists: Bool = try connection.query(
            "SELECT to_regclass('recon_schema_migrations') IS NOT NULL AS present"
        ).first!.decode("present")
        guard exists else { return [] }
        return Set(try connection.query("SELECT version FROM recon_schema_migrations").map { try $0.decode("version") })
    }

    /// Migrations of this build not yet applied: the job refuses to run until they are.
    public func pending(on connection: PostgresConnection) throws -> [Migration] {
        let recorded = try appliedVersions(on: connection)
        return migrations.filter { !recorded.contains($0.version) }
    }
}
