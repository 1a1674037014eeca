import Foundation

/// What the server's own catalogue says, for the tools that manage throwaway clusters (the test
/// scaffolding, the bench) rather than for the job: they keep no SQL of their own.
extension PostgresConnection {
    /// The server's databases whose name matches the `LIKE` pattern `pattern`.
    public func databaseNames(like pattern: String) throws -> [String] {
        try query("SELECT datname FROM pg_database WHERE datname LIKE \(pattern)").map { try $0.decode("datname") }
    }

    /// How many advisory locks sessions of the server hold now, held or awaited.
    public func advisoryLockCount() throws -> Int {
        try query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'").first?.decode("n") ?? 0
    }

    /// `pg_stat_database.active_time` of `database` in milliseconds: the server's time executing statements
    /// there (PostgreSQL 14+). Sessions report it when they end.
    public func activeMilliseconds(ofDatabase database: String) throws -> Double? {
        try query("SELECT active_time FROM pg_stat_database WHERE datname = \(database)").first?.decode(
            at: 0, as: Double.self)
    }
}
