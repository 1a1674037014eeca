import Foundation
import Postgres

/// A lease of tokens from one endpoint's row of `recon_request_budget` (in one environment) for the
/// current clock hour.
struct BudgetLease: Sendable, Equatable {
    /// The window's start by PostgreSQL's clock (UTC clock hour).
    var window: Date
    /// PostgreSQL's clock when the lease was granted.
    var databaseNow: Date
    /// Tokens granted by this lease (0 when the cap is reached).
    var count: Int
    /// The window's sum over every shard once this lease was granted.
    var granted: Int

    /// Where the window's sum stood before this lease.
    var before: Int { granted - count }
}

extension BudgetLease {
    /// Takes up to `count` tokens of `endpoint`'s current window in `environment`, without the window's sum passing
    /// `cap`: one statement, whose `FOR UPDATE` makes every other shard's lease of the same window wait
    /// for this one and then read its sum (so the sum never passes the cap, whatever the shards do).
    /// The window is the clock hour in UTC: `date_trunc` of a `timestamptz` otherwise follows the
    /// session's `TimeZone`, and sessions in zones with half-hour offsets would count apart.
    /// - Returns: nil when the window has no row yet (`open` makes it).
    static func take(
        _ count: Int, of endpoint: String, in environment: String, cap: Int, on connection: PostgresConnection
    ) throws -> BudgetLease? {
        let rows = try connection.query(
            """
            WITH cur AS (
                SELECT granted FROM recon_request_budget
                WHERE environment = \(environment) AND endpoint = \(endpoint)
                    AND window_start = date_trunc('hour', now(), 'UTC')
                FOR UPDATE
            ), lease AS (
                SELECT least(\(count), greatest(0, \(cap) - granted)) AS n FROM cur
            )
            UPDATE recon_request_budget b SET granted = b.granted + lease.n
            FROM lease
            WHERE b.environment = \(environment) AND b.endpoint = \(endpoint)
                AND b.window_start = date_trunc('hour', now(), 'UTC')
            RETURNING lease.n AS leased, b.granted AS granted, b.window_start AS window_start, now() AS database_now
            """)
        guard let row = rows.first else { return nil }
        return BudgetLease(
            window: try row.decode("window_start"), databaseNow: try row.decode("database_now"),
            count: try row.decode("leased"), granted: try row.decode("granted"))
    }

    /// Makes `endpoint`'s row for the current window (another shard may have made it: nothing then),
    /// and deletes windows older than a day, so the table holds about a day of rows.
    static func open(_ endpoint: String, in environment: String, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO recon_request_budget (environment, endpoint, window_start)
            VALUES (\(environment), \(endpoint), date_trunc('hour', now(), 'UTC'))
            ON CONFLICT (environment, endpoint, window_start) DO NOTHING
            """)
        try connection.execute("DELETE FROM recon_request_budget WHERE window_start < now() - interval '1 day'")
    }

    /// `take`, making the window's row first when it has none. Twice at most: the hour can turn
    /// between `open` and the lease.
    static func lease(
        _ count: Int, of endpoint: String, in environment: String, cap: Int, on connection: PostgresConnection
    ) throws -> BudgetLease {
        for _ in 0..<3 {
            if let lease = try take(count, of: endpoint, in: environment, cap: cap, on: connection) { return lease }
            try open(endpoint, in: environment, on: connection)
        }
        throw PostgresError(
            kind: .client,
            message: "recon_request_budget: no row for the current window of \(endpoint) in \(environment) "
                + "after 3 tries")
    }
}

/// The ledger's own connection, opened when first needed and used by one thread at a time.
///
/// Threading: `@unchecked Sendable` because the connection, which is not `Sendable`, and `reconnect`
/// are touched only under `lock`; a caller holds it for one lease (a round trip, or the wait for a
/// restarting database).
final class BudgetConnection: @unchecked Sendable {
    typealias Reconnect = @Sendable (PostgresError) throws -> PostgresConnection

    private let lock = NSLock()
    private var connection: PostgresConnection?
    private let connect: @Sendable () throws -> PostgresConnection
    private var reconnect: Reconnect?

    init(connect: @escaping @Sendable () throws -> PostgresConnection) {
        self.connect = connect
    }

    /// How a dropped connection is replaced from now on: the run's reconnector, which waits out a
    /// restart as every other connection of the run does. Without one, a drop fails the lease.
    func reconnect(with reconnect: @escaping Reconnect) {
        lock.withLock { self.reconnect = reconnect }
    }

    /// Runs `body` alone: the ledger checks there whether it still needs a lease (another thread may
    /// have taken one meanwhile), then calls `use`.
    func serially<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { try body() }
    }

    /// Runs `body` on the connection; inside `serially` only. A connection that dropped is replaced
    /// through `reconnect` and `body` runs again: a lease whose answer was lost may have been
    /// granted, so repeating it can only leave tokens unused, never pass the cap.
    func use<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            let open = try connection ?? connect()
            connection = open
            return try body(open)
        } catch let error as PostgresError where error.isConnectionFailure {
            connection = nil
            guard let reconnect else { throw error }
            let fresh = try reconnect(error)
            connection = fresh
            return try body(fresh)
        }
    }
}
