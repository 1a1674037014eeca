import Postgres
import Synchronization
import Testing

@testable import Reconciliation

/// Reconnecting after a drop: a database that comes back is used again; one that stays away ends the
/// run after one window, however many stages need it.
@Suite struct DatabaseReconnectorTests {
    static let unreachable = "host=/nonexistent-receipt-recon-socket-dir port=1 dbname=none user=none"

    static func failure() -> PostgresError {
        PostgresError(kind: .connection, message: "connection to the database dropped")
    }

    @Test func aDatabaseThatStaysAwayIsGivenUpOnOnceForTheWholeRun() throws {
        let attempts = Atomic(0)
        let reconnector = DatabaseReconnector(
            policy: ReconnectPolicy(window: .milliseconds(600)), shutdown: ShutdownSignal(),
            log: EventLog(enabled: false),
            connect: { _ in
                attempts.add(1, ordering: .relaxed)
                return try PostgresConnection(conninfo: Self.unreachable)
            })
        let first = #expect(throws: PostgresError.self) { try reconnector.reconnect("writer 0", after: Self.failure()) }
        #expect(first?.description.contains("--db-reconnect-window") == true)
        let tried = attempts.load(ordering: .relaxed)
        #expect(tried >= 1)

        // The reader and the lock connection notice the same outage later: no second window.
        #expect(throws: PostgresError.self) { try reconnector.reconnect("reader", after: Self.failure()) }
        #expect(throws: PostgresError.self) { try reconnector.reconnect("lock", after: Self.failure()) }
        #expect(attempts.load(ordering: .relaxed) == tried)
    }

    @Test func aSignalEndsTheWaitWithTheOriginalFailure() throws {
        let shutdown = ShutdownSignal()
        shutdown.request("SIGTERM")
        let reconnector = DatabaseReconnector(
            policy: ReconnectPolicy(window: .seconds(120)), shutdown: shutdown, log: EventLog(enabled: false),
            connect: { _ in try PostgresConnection(conninfo: Self.unreachable) })
        let error = #expect(throws: PostgresError.self) {
            try reconnector.reconnect("writer 0", after: Self.failure())
        }
        #expect(error?.description == Self.failure().description)
    }
}
