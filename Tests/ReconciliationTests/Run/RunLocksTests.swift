import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// The run's session locks across a dropped connection: taken again when nobody else came, and the
/// run told to stop when another run took the shard or its row meanwhile.
@Suite struct RunLocksTests {
    static let nightly = AdvisoryLockKey(name: "receipt-recon:nightly:test")

    /// A started run whose lock connection the test can cut.
    struct Started {
        let locks: RunLocks
        let runID: Int64
        let backendPID: Int32
    }

    static func start(on database: TestDatabase) throws -> Started {
        let connection = try database.connect()
        #expect(try connection.tryAdvisoryLock(nightly))
        let runID = try RunStore(connection: connection).start(
            kind: .nightly, options: RunOptions(asOf: Date(), startedAt: Date()))
        let reconnector = DatabaseReconnector(
            policy: ReconnectPolicy(window: .seconds(10)), shutdown: ShutdownSignal(), log: EventLog(enabled: false),
            connect: { _ in try database.connect() })
        let pid = connection.backendPID
        return Started(
            locks: RunLocks(connection: connection, runID: runID, nightlyKey: nightly, reconnector: reconnector),
            runID: runID, backendPID: pid)
    }

    /// Waits until the terminated backend `pid` has exited (and so released its session locks).
    static func waitUntilGone(_ pid: Int32, on connection: PostgresConnection) throws {
        for _ in 0..<200 {
            let alive: Bool = try connection.query(
                "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = \(pid)) AS alive"
            ).first!.decode("alive")
            if !alive { return }
            usleep(25_000)
        }
        Issue.record("backend \(pid) did not exit")
    }

    /// Backends holding the advisory lock `key` in this database (the suite's other tests run beside it).
    static func holders(of key: AdvisoryLockKey, on connection: PostgresConnection) throws -> [Int32] {
        try connection.query(
            """
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = \(key.value)
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        ).map { try $0.decode("pid") }
    }

    @Test func afterADropTheLocksAreTakenAgainOnANewConnection() throws {
        try TestDatabase.with { database in
            let started = try Self.start(on: database)
            let admin = try database.connect()
            try admin.execute("SELECT pg_terminate_backend(\(started.backendPID))")
            try Self.waitUntilGone(started.backendPID, on: admin)
            #expect(try Self.holders(of: Self.nightly, on: admin).isEmpty)

            try started.locks.ensureHeld()
            let holders = try Self.holders(of: Self.nightly, on: admin)
            #expect(holders.count == 1 && holders != [started.backendPID])
            #expect(try Self.holders(of: RunStore.lockKey(for: started.runID), on: admin) == holders)
        }
    }

    @Test func anotherRunThatTookTheShardMeanwhileStopsThisOne() throws {
        try TestDatabase.with { database in
            let started = try Self.start(on: database)
            let other = try database.connect()
            try other.execute("SELECT pg_terminate_backend(\(started.backendPID))")
            try Self.waitUntilGone(started.backendPID, on: other)
            #expect(try other.tryAdvisoryLock(Self.nightly))

            #expect(throws: RunLocks.Lost.self) { try started.locks.ensureHeld() }
            // Once lost, always lost: no later batch may write.
            #expect(throws: RunLocks.Lost.self) { try started.locks.withConnection { _ in 1 } }
        }
    }

    @Test func aRowMarkedInterruptedMeanwhileStopsThisRun() throws {
        try TestDatabase.with { database in
            let started = try Self.start(on: database)
            let other = try database.connect()
            try other.execute("SELECT pg_terminate_backend(\(started.backendPID))")
            try Self.waitUntilGone(started.backendPID, on: other)
            #expect(try RunStore(connection: other).interruptAbandonedRuns() == [started.runID])

            #expect(throws: RunLocks.Lost.self) { try started.locks.ensureHeld() }
        }
    }
}
