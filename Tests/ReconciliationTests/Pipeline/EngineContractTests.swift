import AppStoreReceipts
import Foundation
import Postgres
import Reconciliation
import Synchronization
import TestSupport
import Testing

/// The pipeline's contract (CONTRACT §6, §7), driven in process: the real engine against a throwaway
/// PostgreSQL, Apple scripted per user (`ScriptedAppleBackend`). Where the binary's tests
/// (`RunSafetyTests`, `DatabaseFaultTests`, `MetricsFileTests`) check what an operator sees, these
/// check the engine's end and what it wrote, in seconds, with stops and faults placed by a count of
/// users asked rather than by time.
@Suite struct EngineContractTests {
    static let asOf = ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z")!
    static let bought = ISO8601DateFormatter().date(from: "2026-09-01T00:00:00Z")!

    static func user(_ index: Int) -> String { String(format: "user-%04d", index) }

    /// `users` users with one receipt each for the lifetime product (`pro`); with `entitled`, each
    /// holds an active `pro` entitlement.
    static func seed(_ database: TestDatabase, users: Int, entitled: Bool) throws {
        let db = try database.connect()
        try db.execute("INSERT INTO products VALUES ('lifetime', 'non_consumable', 'pro', NULL)")
        try db.copy(
            into: "receipts", columns: ["user_id", "receipt_data"],
            rows: (0..<users).map { [user($0), Data("receipt-\($0)".utf8).base64EncodedString()] })
        guard entitled else { return }
        try db.copy(
            into: "entitlements", columns: ["user_id", "entitlement", "active"],
            rows: (0..<users).map { [user($0), "pro", true] })
    }

    /// Apple's word for a user who bought the lifetime product, refunded when `refunded`.
    static func bought(_ userID: String, refunded: Bool = false, delay: Duration = .zero)
        -> ScriptedAppleBackend.Answer
    {
        var fields = Purchase.Fields(source: .verifyReceipt)
        fields.productID = "lifetime"
        fields.transactionID = "t-\(userID)"
        fields.originalTransactionID = "t-\(userID)"
        fields.purchaseDate = bought
        fields.quantity = 1
        fields.ownership = "PURCHASED"
        fields.revocation = refunded ? Revocation(date: bought.addingTimeInterval(86_400)) : nil
        return ScriptedAppleBackend.Answer(
            ReceiptClassification(outcome: .valid, appleStatus: 0, environment: .production, detail: "status 0"),
            purchases: [Purchase(fields)], delay: delay)
    }

    static func options(dryRun: Bool = false, concurrency: Int = 4) -> RunOptions {
        var options = RunOptions(asOf: asOf, startedAt: asOf)
        options.olderThan = 0
        options.dryRun = dryRun
        options.concurrency = concurrency
        return options
    }

    static func run(
        _ database: TestDatabase, _ apple: ScriptedAppleBackend, options: RunOptions = options(),
        shutdown: ShutdownSignal = ShutdownSignal()
    ) throws -> RunOutcome {
        try ReconciliationEngine(
            options: options, request: RunRequest(), databaseURL: database.conninfo, backend: apple,
            driver: apple.driver,
            shutdown: shutdown,
            log: EventLog(enabled: false)
        ).runNightly()
    }

    static func count(_ sql: String, on db: PostgresConnection) throws -> Int {
        try db.query(PostgresQuery(unsafeSQL: sql)).first!.decode(at: 0, as: Int.self)
    }

    static func users(_ sql: String, on db: PostgresConnection) throws -> Set<String> {
        Set(try db.query(PostgresQuery(unsafeSQL: sql)).map { try $0.decode(at: 0, as: String.self) })
    }

    /// The run's row: its status and reason.
    static func row(_ runID: Int64, on db: PostgresConnection) throws -> (status: String, reason: String?) {
        let row = try db.query("SELECT status, abort_reason FROM recon_runs WHERE id = \(runID)").first!
        return (try row.decode("status"), try row.decode("abort_reason"))
    }
}

extension EngineContractTests {
    @Test func aRunWithNothingWrongGrantsWhatWasBoughtAndEndsCompleted() throws {
        try TestDatabase.with { database in
            try Self.seed(database, users: 150, entitled: false)
            let apple = ScriptedAppleBackend(script: { Self.bought($0) })
            let outcome = try Self.run(database, apple)
            #expect(outcome.end == .completed)
            #expect(outcome.exitCode == .success)
            #expect(Set(apple.askedUsers).count == 150)
            let db = try database.connect()
            #expect(try Self.row(outcome.summary.runID, on: db).status == "completed")
            #expect(try Self.count("SELECT count(*) FROM entitlements WHERE active", on: db) == 150)
        }
    }

    @Test func aDryRunPlansEveryCorrectionAndWritesNoEntitlement() throws {
        try TestDatabase.with { database in
            try Self.seed(database, users: 150, entitled: false)
            let apple = ScriptedAppleBackend(script: { Self.bought($0) })
            let db = try database.connect()

            let dry = try Self.run(database, apple, options: Self.options(dryRun: true))
            #expect(dry.end == .completed)
            #expect(dry.summary.correctionCount == 150)
            #expect(dry.summary.corrections[.grant]?.values.reduce(0, +) == 150)
            #expect(try Self.count("SELECT count(*) FROM entitlements", on: db) == 0)
            #expect(try Self.count("SELECT count(*) FROM recon_corrections WHERE applied", on: db) == 0)

            // The same world without --dry-run writes exactly what the dry run planned.
            let real = try Self.run(database, apple)
            #expect(real.end == .completed)
            #expect(real.summary.corrections == dry.summary.corrections)
            #expect(try Self.count("SELECT count(*) FROM entitlements WHERE active", on: db) == 150)
        }
    }

    @Test func theRevokeBreakerStopsABadNightBeforeItRevokesMostUsers() throws {
        try TestDatabase.with { database in
            let users = 1000
            try Self.seed(database, users: users, entitled: true)
            let apple = ScriptedAppleBackend(script: { Self.bought($0, refunded: true) })
            let outcome = try Self.run(database, apple)
            guard case .breaker(let reason) = outcome.end else {
                Issue.record("the run ended \(outcome.end), not by a breaker")
                return
            }
            #expect(reason.contains("--max-revoke-ratio"))
            #expect(outcome.exitCode == .unavailable)
            let db = try database.connect()
            #expect(try Self.row(outcome.summary.runID, on: db).status == "aborted")
            let revoked = try Self.count("SELECT count(*) FROM entitlements WHERE NOT active", on: db)
            #expect(revoked < users / 2, "the breaker let \(revoked) of \(users) users be revoked")
        }
    }

    @Test func theUnverifiedBreakerStopsAskingAppleAndWritesNothing() throws {
        try TestDatabase.with { database in
            let users = 1000
            try Self.seed(database, users: users, entitled: true)
            let apple = ScriptedAppleBackend(script: { _ in
                ScriptedAppleBackend.Answer(.unverified(.transient, detail: "HTTP 503 from Apple"))
            })
            let outcome = try Self.run(database, apple)
            guard case .breaker(let reason) = outcome.end else {
                Issue.record("the run ended \(outcome.end), not by a breaker")
                return
            }
            #expect(reason.contains("--max-unverified-ratio"))
            #expect(outcome.exitCode == .unavailable)
            #expect(apple.askedUsers.count < users / 2, "Apple was asked about \(apple.askedUsers.count) users")
            let db = try database.connect()
            #expect(try Self.row(outcome.summary.runID, on: db).status == "aborted")
            #expect(try Self.count("SELECT count(*) FROM entitlements WHERE active", on: db) == users)
            #expect(try Self.count("SELECT count(*) FROM recon_corrections", on: db) == 0)
        }
    }

    @Test func appleRefusingTheConfigurationEndsTheRunBeforeAnyCorrection() throws {
        try TestDatabase.with { database in
            try Self.seed(database, users: 150, entitled: true)
            let apple = ScriptedAppleBackend(script: { userID in
                var answer = Self.bought(userID, refunded: true)
                answer.configurationAbort = ConfigurationAbort(problem: .sharedSecretMismatch, appleStatus: 21004)
                return answer
            })
            let outcome = try Self.run(database, apple)
            guard case .appleConfiguration(let reason) = outcome.end else {
                Issue.record("the run ended \(outcome.end), not on Apple's configuration refusal")
                return
            }
            #expect(reason.contains("APPLE_SHARED_SECRET"))
            #expect(outcome.exitCode == .configuration)
            let db = try database.connect()
            #expect(try Self.row(outcome.summary.runID, on: db).status == "aborted")
            #expect(try Self.count("SELECT count(*) FROM entitlements WHERE active", on: db) == 150)
        }
    }

    @Test func aSignalLetsTheUsersInFlightFinishAndLeavesTheQueuedOnes() throws {
        try TestDatabase.with { database in
            let users = 200
            try Self.seed(database, users: users, entitled: false)
            let shutdown = ShutdownSignal()
            let apple = ScriptedAppleBackend(
                script: { Self.bought($0, delay: .milliseconds(20)) },
                onAsked: { _, asked in if asked == 40 { shutdown.request("SIGTERM") } })
            let outcome = try Self.run(database, apple, shutdown: shutdown)
            guard case .interrupted(let reason) = outcome.end else {
                Issue.record("the run ended \(outcome.end), not interrupted")
                return
            }
            #expect(reason.contains("SIGTERM"))
            #expect(outcome.exitCode == .tempFail)
            let db = try database.connect()
            #expect(try Self.row(outcome.summary.runID, on: db).status == "interrupted")
            // Every user Apple was asked about was written whole; no user still queued was.
            let asked = Set(apple.askedUsers)
            #expect(asked.count >= 40 && asked.count < users)
            #expect(try Self.users("SELECT DISTINCT user_id FROM recon_results", on: db) == asked)
            #expect(try Self.users("SELECT user_id FROM entitlements WHERE active", on: db) == asked)
        }
    }

    @Test func aDroppedDatabaseConnectionCostsAReconnectAndNothingElse() throws {
        try TestDatabase.with { database in
            let users = 300
            try Self.seed(database, users: users, entitled: false)
            let failover = try Failover(database)
            let apple = ScriptedAppleBackend(
                script: { Self.bought($0, delay: .milliseconds(5)) },
                onAsked: { _, asked in if asked == 200 { failover.dropWriterConnections() } })
            let outcome = try Self.run(database, apple)
            #expect(failover.dropped > 0, "no writer connection was dropped")
            #expect(outcome.end == .completed)
            #expect(outcome.exitCode == .success)
            let db = try database.connect()
            #expect(try Self.row(outcome.summary.runID, on: db).status == "completed")
            #expect(try Self.count("SELECT count(*) FROM entitlements WHERE active", on: db) == users)
            #expect(try Self.count("SELECT count(*) FROM recon_corrections WHERE applied", on: db) == users)
            #expect(outcome.summary.corrections[.grant]?.values.reduce(0, +) == users)
        }
    }

    @Test func aShardWhoseLockIsHeldEndsSkippedWithoutARowOrAQuestionToApple() throws {
        try TestDatabase.with { database in
            try Self.seed(database, users: 10, entitled: false)
            let holder = try database.connect()
            #expect(try holder.tryAdvisoryLock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))
            let apple = ScriptedAppleBackend(script: { Self.bought($0) })
            let outcome = try Self.run(database, apple)
            #expect(outcome.end == .lockHeld(shard: "0/1"))
            #expect(outcome.end.status == "skipped")
            #expect(outcome.exitCode == .tempFail)
            #expect(apple.askedUsers.isEmpty)
            #expect(try Self.count("SELECT count(*) FROM recon_runs", on: try database.connect()) == 0)
        }
    }
}

/// Ends the run's writer sessions under it, as a database failover does.
private final class Failover: Sendable {
    private let connection: Mutex<PostgresConnection>
    private let count = Mutex(0)

    init(_ database: TestDatabase) throws { connection = Mutex(try database.connect()) }

    /// How many sessions `dropWriterConnections` ended.
    var dropped: Int { count.withLock { $0 } }

    func dropWriterConnections() {
        let ended = connection.withLock { db in
            try? db.query(
                """
                SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND application_name LIKE 'receipt-recon writer%'
                """
            ).first?.decode("n", as: Int.self)
        }
        count.withLock { $0 += ended ?? 0 }
    }
}
