import AppStoreReceipts
import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

@testable import Reconciliation

/// One request budget for every shard: ledgers on their own connections, as two shards
/// are, lease from the same row of `recon_request_budget`, and whatever the threads do, the window's
/// sum never passes the limit.
@Suite struct RequestBudgetLedgerTests {
    static let endpoint = AppleEndpoint.serverAPI(.transactionHistory)

    static func ledger(
        _ database: TestDatabase, limit: Int, reserve: Int = 0, leaseSize: Int = 10, waitsUntil: Date? = nil
    ) -> RequestBudgetLedger {
        RequestBudgetLedger(
            limit: limit, reserve: reserve, leaseSize: leaseSize, waitsUntil: waitsUntil,
            connect: { try database.connect() })
    }

    /// Runs `body(index)` on `count` threads of the test's own at once, and waits for them all.
    static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchSemaphore(value: 0)
        for index in 0..<count {
            Thread.detachNewThread {
                body(index)
                done.signal()
            }
        }
        for _ in 0..<count { done.wait() }
    }

    /// Takes for `purpose` until the ledger says anything but `.granted`; the grants, and that answer.
    static func takeAll(_ ledger: RequestBudgetLedger, _ purpose: RequestPurpose) -> (Int, BudgetAnswer) {
        var granted = 0
        while true {
            let answer = ledger.take(endpoint, purpose: purpose)
            guard answer == .granted else { return (granted, answer) }
            granted += 1
        }
    }

    /// Seconds until the next clock hour by PostgreSQL's clock.
    static func secondsLeftInTheHour(_ connection: PostgresConnection) throws -> Double {
        try connection.query(
            "SELECT extract(epoch FROM date_trunc('hour', now(), 'UTC') + interval '1 hour' - now())::float8 AS left"
        ).first!.decode("left")
    }

    /// Keeps a test from straddling two windows: waits for the next hour when this one ends within 20 s.
    static func awayFromTheHour(_ connection: PostgresConnection) throws {
        let left = try secondsLeftInTheHour(connection)
        if left < 20 { Thread.sleep(forTimeInterval: left + 1) }
    }

    static func windowSum(_ connection: PostgresConnection) throws -> Int {
        try connection.query(
            "SELECT coalesce(sum(granted), 0)::int8 AS sum FROM recon_request_budget WHERE endpoint = \(endpoint.description)"
        ).first!.decode("sum")
    }

    /// Two shards as the issue asks; six with leases of two, so that their round trips collide often.
    @Test(arguments: [(shards: 2, lease: 10), (shards: 6, lease: 2)])
    func shardsOnManyThreadsNeverGrantMoreThanTheLimit(shards count: Int, lease: Int) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try Self.awayFromTheHour(connection)
            let shards = (0..<count).map { _ in Self.ledger(database, limit: 57, leaseSize: lease) }
            let granted = Mutex(0)
            let answers = Mutex<[BudgetAnswer]>([])
            // 4 threads a shard, each wanting 40 requests: far more than 57.
            Self.concurrently(4 * count) { index in
                let purpose: RequestPurpose = [.ask, .continuation, .retry, .hop][index / count % 4]
                var mine = 0
                for _ in 0..<40 {
                    let answer = shards[index % count].take(Self.endpoint, purpose: purpose)
                    if answer == .granted { mine += 1 } else { answers.withLock { $0.append(answer) } }
                }
                granted.withLock { $0 += mine }
            }
            #expect(granted.withLock { $0 } == 57, "demand above the limit gets the limit exactly")
            #expect(answers.withLock { $0 }.allSatisfy { $0 == .spent })
            let figures = shards.map { $0.figures.endpoints[Self.endpoint.description] }
            #expect(figures.map { $0?.granted ?? 0 }.reduce(0, +) == 57)
            #expect(figures.map { $0?.leased ?? 0 }.reduce(0, +) == 57, "every token leased was used")
            #expect(figures.allSatisfy { $0?.windows == 1 && $0?.spentAt != nil })
            #expect(try Self.windowSum(connection) == 57, "the table's row says the same")
            #expect(shards.allSatisfy { $0.lastError == nil })
        }
    }

    @Test func sumStaysAtOrBelowTheLimitWhenDemandIsBelowIt() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try Self.awayFromTheHour(connection)
            let shards = (0..<6).map { _ in Self.ledger(database, limit: 57, leaseSize: 2) }
            // Each shard holds at most 3 tokens it may never use (a lease of 2 refilled at 1): a demand
            // of 57 − 18 is granted whole.
            Self.concurrently(12) { index in
                for _ in 0..<3 { #expect(shards[index % 6].take(Self.endpoint, purpose: .ask) == .granted) }
            }
            let granted = shards.map { $0.figures.endpoints[Self.endpoint.description]?.granted ?? 0 }
            #expect(granted.reduce(0, +) == 36)
            let sum = try Self.windowSum(connection)
            #expect(sum >= 36 && sum <= 57, "leased ahead of need, never past the limit: \(sum)")
        }
    }

    @Test func asksStopAtTheReserveWhileWorkAlreadyAskedGetsTheRest() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try Self.awayFromTheHour(connection)
            let shards = [Self.ledger(database, limit: 57, reserve: 12), Self.ledger(database, limit: 57, reserve: 12)]
            let asks = Mutex(0)
            Self.concurrently(6) { index in
                let (granted, last) = Self.takeAll(shards[index % 2], .ask)
                #expect(last == .spent)
                asks.withLock { $0 += granted }
            }
            #expect(asks.withLock { $0 } == 45, "new questions stop at limit − reserve")
            let continuations = Mutex(0)
            Self.concurrently(6) { index in
                let purpose: RequestPurpose = index < 3 ? .continuation : .retry
                let (granted, last) = Self.takeAll(shards[index % 2], purpose)
                #expect(last == .spent)
                continuations.withLock { $0 += granted }
            }
            #expect(continuations.withLock { $0 } == 12, "work already asked gets the reserve")
            #expect(try Self.windowSum(connection) == 57)
            #expect(shards.map { $0.take(Self.endpoint, purpose: .ask) } == [.spent, .spent])
        }
    }

    @Test func aSpentWindowWithNoBudgetHoursIsSpent() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try Self.awayFromTheHour(connection)
            let ledger = Self.ledger(database, limit: 5, leaseSize: 2)
            let (granted, last) = Self.takeAll(ledger, .continuation)
            #expect(granted == 5)
            #expect(last == .spent)
            let figures = ledger.figures.endpoints[Self.endpoint.description]
            #expect(figures?.granted == 5 && figures?.leased == 5 && figures?.spentAt != nil)
            #expect(ledger.figures.limit == 5)
            // Another endpoint has its own window.
            #expect(ledger.take(.serverAPI(.subscriptionStatuses), purpose: .ask) == .granted)
        }
    }

    @Test func aSpentWindowBeforeTheDeadlineWaitsForTheNextHour() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try Self.awayFromTheHour(connection)
            let ledger = Self.ledger(database, limit: 5, waitsUntil: Date().addingTimeInterval(3 * 3600))
            let told = Mutex<[(endpoint: String, resumesAt: Date)]>([])
            ledger.onWait { key, _, resumesAt in told.withLock { $0.append((key.description, resumesAt)) } }
            let leftBefore = try Self.secondsLeftInTheHour(connection)
            let (granted, last) = Self.takeAll(ledger, .ask)
            let left = try Self.secondsLeftInTheHour(connection)
            #expect(granted == 5)
            guard case .wait(let seconds) = last else {
                Issue.record("expected a wait for the next window, got \(last)")
                return
            }
            // Until the next hour by PostgreSQL's clock, and the ledger's margin past it: at least what
            // was left after the takes, at most what was left before them plus the margin.
            #expect(
                left <= seconds && seconds <= leftBefore + RequestBudgetLedger.pastTheHour,
                "waits until the next hour by PostgreSQL's clock: \(seconds), left \(leftBefore) then \(left)")
            #expect(ledger.figures.endpoints[Self.endpoint.description]?.spentAt == nil)
            // The run is told once per endpoint and hour, with when it resumes, however many requests wait.
            #expect(ledger.take(Self.endpoint, purpose: .continuation) != .granted)
            let notices = told.withLock { $0 }
            #expect(notices.map(\.endpoint) == [Self.endpoint.description], "\(notices)")
            if let resumesAt = notices.first?.resumesAt {
                let resumesIn = resumesAt.timeIntervalSinceNow
                #expect(abs(resumesIn - seconds) < 5, "resumes in \(resumesIn) s, the wait is \(seconds) s")
            }

            // A deadline before the next hour opens: no window left to wait for.
            let late = Self.ledger(database, limit: 5, waitsUntil: Date().addingTimeInterval(left - 5))
            #expect(late.take(Self.endpoint, purpose: .continuation) == .spent)
        }
    }

    /// A restart drops the ledger's connection with every other one of the run: the ledger waits it out
    /// through the run's reconnector as they do, and grants again once the database is back.
    @Test func aRestartIsWaitedOutThroughTheRunsReconnectorAndAFailureIsKeptAndSpent() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try Self.awayFromTheHour(connection)
            let attempts = Mutex(0)
            let reconnector = DatabaseReconnector(
                policy: ReconnectPolicy(window: .seconds(30)), shutdown: ShutdownSignal(),
                log: EventLog(enabled: false),
                connect: { _ in
                    // The server is still starting for the first two attempts.
                    let attempt = attempts.withLock {
                        $0 += 1
                        return $0
                    }
                    guard attempt > 2 else { throw PostgresError(kind: .connection, message: "server starting") }
                    return try database.connect()
                })
            let ledger = RequestBudgetLedger(
                limit: 100, reserve: 0, leaseSize: 1, waitsUntil: nil,
                connect: { try PostgresConnection(conninfo: database.conninfo, applicationName: "budget-under-test") })
            ledger.reconnect { try reconnector.reconnect("budget", after: $0) }
            #expect(ledger.take(Self.endpoint, purpose: .ask) == .granted)
            try connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'budget-under-test'")
            for _ in 0..<3 { #expect(ledger.take(Self.endpoint, purpose: .ask) == .granted) }
            #expect(attempts.withLock { $0 } == 3)
            #expect(ledger.lastError == nil)
            #expect(try Self.windowSum(connection) == 4, "the lease lost with the connection granted nothing")

            let broken = RequestBudgetLedger(
                limit: 100, reserve: 0, leaseSize: 10, waitsUntil: Date().addingTimeInterval(3600),
                connect: { throw PostgresError(kind: .connection, message: "no server here") })
            #expect(broken.take(Self.endpoint, purpose: .ask) == .spent, "never grants what it cannot count")
            #expect(broken.lastError?.message == "no server here")
            #expect(broken.figures.endpoints[Self.endpoint.description]?.spentAt != nil)
        }
    }

    @Test func leaseSizeAndReserveFollowTheRunsFigures() {
        #expect(RequestBudgetLedger.leaseSize(rate: 1) == 10)
        #expect(RequestBudgetLedger.leaseSize(rate: 40) == 80)
        #expect(RequestBudgetLedger.leaseSize(rate: 500) == 200)
        #expect(RequestBudgetLedger.reserve(limit: 90_000, concurrency: 8, shardCount: 4) == 1800)
        #expect(RequestBudgetLedger.reserve(limit: 1000, concurrency: 8, shardCount: 4) == 96)
        #expect(RequestBudgetLedger.reserve(limit: 100, concurrency: 8, shardCount: 4) == 20, "a fifth at most")
    }
}
