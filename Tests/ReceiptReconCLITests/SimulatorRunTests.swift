import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Postgres
import TestSupport
import Testing

/// CONTRACT §6 and §7 against the simulator's world and fault knobs: kill -9, outages, a wrong
/// shared secret, the rate limit, concurrent runs and support beside the nightly run.
@Suite struct SimulatorRunTests {
    static let asOf = "2026-11-01T00:00:00Z"
    static let bundleID = WorldCatalog.appBundleID

    static func world(users: Int) -> SimulatedWorld {
        SimulatedWorld(users: users, seed: 11, asOf: ISO8601DateFormatter().date(from: asOf)!)
    }

    /// Seeds `world` into `database` and returns the simulator's expectation for a clean run.
    @discardableResult
    static func seed(_ world: SimulatedWorld, into database: TestDatabase) throws -> ExpectedOutcome {
        try WorldSeeder.seed(world, into: database.connect()).expected
    }

    static func environment(_ database: TestDatabase, _ simulator: AppStoreSimulator, secret: String? = nil) -> [String:
        String]
    {
        var environment = [
            "DATABASE_URL": database.conninfo,
            "APPLE_VERIFY_URL_PRODUCTION": simulator.productionURL.absoluteString,
            "APPLE_VERIFY_URL_SANDBOX": simulator.sandboxURL.absoluteString,
            "APPLE_BUNDLE_IDS": bundleID,
        ]
        if let secret { environment["APPLE_SHARED_SECRET"] = secret }
        return environment
    }

    static func started(_ world: SimulatedWorld, _ options: SimulatorOptions = SimulatorOptions()) throws
        -> AppStoreSimulator
    {
        let simulator = AppStoreSimulator(world: world, options: options)
        try simulator.start(port: 0)
        return simulator
    }

    /// The arrange block of a simulated night: a world of `users`, the simulator serving it (stopped
    /// afterwards), and a fresh database seeded with it, handed to `body`.
    static func seededWorld<T>(
        users: Int, _ options: SimulatorOptions = SimulatorOptions(),
        _ body: (SimulatedWorld, AppStoreSimulator, TestDatabase) throws -> T
    ) throws -> T {
        let world = Self.world(users: users)
        let simulator = try started(world, options)
        defer { simulator.stop() }
        return try TestDatabase.with { database in
            try seed(world, into: database)
            return try body(world, simulator, database)
        }
    }

    static let run = ["run", "--older-than", "0", "--as-of", asOf, "--rate", "1000", "--concurrency", "8"]

    static func applied(_ db: PostgresConnection) throws -> [String] {
        try db.query(
            """
            SELECT user_id || ' ' || entitlement || ' ' || action AS c FROM recon_corrections WHERE applied ORDER BY 1
            """
        ).map { try $0.decode("c") }
    }

    static func entitlements(_ db: PostgresConnection) throws -> [String] {
        try db.query(
            """
            SELECT user_id || ' ' || entitlement || ' ' || active || ' ' || coalesce(expires_at::text, '-') || ' ' || source AS e
            FROM entitlements ORDER BY user_id, entitlement
            """
        ).map { try $0.decode("e") }
    }

    @Test func killedAtFiveMomentsAgainstASlowSimulatorEndsLikeOneUninterruptedRun() throws {
        let world = Self.world(users: 300)
        // 8 lanes at 100 ms a request: about 80 receipts a second, so a run lasts about four seconds and
        // every kill moment below lands inside it (at 60 ms, batched writes finished the run before 3 s).
        let simulator = try Self.started(world, SimulatorOptions(latency: .milliseconds(100)))
        defer { simulator.stop() }
        let (reference, referenceRows) = try TestDatabase.with { database in
            let expected = try Self.seed(world, into: database)
            let result = try ReceiptReconBinary.run(Self.run, environment: Self.environment(database, simulator))
            #expect([0, 1].contains(result.status), "\(result.output)")
            let db = try database.connect()
            let applied = try Self.applied(db)
            #expect(Set(applied) == Set(expected.corrections.map { "\($0.userID) \($0.entitlement) \($0.action)" }))
            return (applied, try Self.entitlements(db))
        }
        try TestDatabase.with { database in
            try Self.seed(world, into: database)
            let environment = Self.environment(database, simulator)
            for seconds in [0.5, 1.5, 2.0, 2.5, 3.0] {
                let child = try ReceiptReconBinary.start(Self.run, environment: environment)
                Thread.sleep(forTimeInterval: seconds)
                child.signal(SIGKILL)
                _ = try child.wait(timeout: 60)
                try database.connect().waitUntilAdvisoryLocksAreFree()
            }
            let final = try ReceiptReconBinary.run(Self.run, environment: environment)
            #expect([0, 1].contains(final.status), "\(final.output)")
            let db = try database.connect()
            let applied = try Self.applied(db)
            #expect(applied == reference, "applied corrections differ from an uninterrupted run")
            #expect(try Self.entitlements(db) == referenceRows)
            let statuses: [String] = try db.query("SELECT status FROM recon_runs ORDER BY id").map {
                try $0.decode("status")
            }
            // A kill is marked by the next run; one that came after its run had ended (a loaded machine
            // is slower, the kills are not) leaves that run's own end. None is left "running".
            #expect(
                statuses.dropLast().allSatisfy { ["interrupted", "completed", "partial"].contains($0) }, "\(statuses)")
        }
    }

    @Test func aDryRunChangesNoEntitlementAndRecordsWhatTheRealRunApplies() throws {
        let world = Self.world(users: 300)
        let simulator = try Self.started(world)
        defer { simulator.stop() }
        try TestDatabase.with { database in
            let expected = try Self.seed(world, into: database)
            let db = try database.connect()
            let dump =
                "SELECT string_agg(row(e.*)::text, E'\\n' ORDER BY user_id, entitlement) AS d FROM entitlements e"
            let before: String = try db.query(PostgresQuery(unsafeSQL: dump)).first!.decode("d")
            let dry = try ReceiptReconBinary.run(
                Self.run + ["--dry-run"], environment: Self.environment(database, simulator))
            #expect([0, 1].contains(dry.status), "\(dry.output)")
            #expect(try db.query(PostgresQuery(unsafeSQL: dump)).first!.decode("d") == before)
            let planned: [String] = try db.query(
                """
                SELECT user_id || ' ' || entitlement || ' ' || action AS c FROM recon_corrections WHERE NOT applied ORDER BY 1
                """
            ).map { try $0.decode("c") }
            let wet = try ReceiptReconBinary.run(Self.run, environment: Self.environment(database, simulator))
            #expect([0, 1].contains(wet.status), "\(wet.output)")
            #expect(try Self.applied(db) == planned)
            #expect(Set(planned) == Set(expected.corrections.map { "\($0.userID) \($0.entitlement) \($0.action)" }))
        }
    }

    /// On a terminal, stderr carries a progress line; in cron (not a terminal) it never appears.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script(1) not installed"))
    func aProgressLineIsDrawnOnlyOnATerminal() throws {
        try Self.seededWorld(users: 150, SimulatorOptions(latency: .milliseconds(50))) { world, simulator, database in
            var environment = Self.environment(database, simulator)
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            // The line is drawn every second: a rate of 50 makes the run last several.
            let slow = ["run", "--older-than", "0", "--as-of", Self.asOf, "--rate", "50", "--concurrency", "8"]
            let command = ([ReceiptReconBinary.url.path] + slow).joined(separator: " ")
            // script(1) runs the job on a pseudo-terminal, as an operator's shell would.
            let onTerminal = try ChildProcess.run(
                "/usr/bin/script", ["-qec", command, "/dev/null"],
                environment: environment, timeout: 120)
            #expect(onTerminal.stdoutText.contains("receipts, "), "\(onTerminal.stdoutText.suffix(400))")
            #expect(onTerminal.stdoutText.contains("ETA"))
            #expect(onTerminal.stdoutText.contains("unverified"))
            let inCron = try ReceiptReconBinary.run(Self.run, environment: environment)
            #expect(!inCron.stderr.contains("ETA"))
            #expect(!inCron.stderr.contains("receipts, "))
        }
    }

    @Test(arguments: [FaultKind.status21009, .serviceUnavailable])
    func aSimulatorAnsweringOnlyFaultsTripsTheBreakerAndChangesNothing(fault: FaultKind) throws {
        try Self.seededWorld(users: 150, SimulatorOptions(faultRate: 1, faultMix: [fault: 1])) {
            world, simulator, database in
            let db = try database.connect()
            let before = try Self.entitlements(db)
            let result = try ReceiptReconBinary.run(
                [
                    "run", "--older-than", "0", "--as-of", Self.asOf, "--rate", "1000", "--max-attempts", "1",
                    "--concurrency", "16",
                ],
                environment: Self.environment(database, simulator))
            #expect(result.status == 69, "\(result.output)")
            #expect(try Self.entitlements(db) == before)
            let row = try db.query("SELECT status, abort_reason FROM recon_runs").first!
            #expect(try row.decode("status") == "aborted")
            #expect(try row.decode("abort_reason", as: String?.self)?.contains("unverified") == true)
        }
    }

    @Test func aWrongSharedSecretExits78WithZeroCorrections() throws {
        try Self.seededWorld(users: 150, SimulatorOptions(sharedSecret: "the-right-secret")) {
            world, simulator, database in
            let result = try ReceiptReconBinary.run(
                Self.run, environment: Self.environment(database, simulator, secret: "a-rotated-one"))
            #expect(result.status == 78, "\(result.output)")
            #expect(!result.output.contains("a-rotated-one"))
            let db = try database.connect()
            #expect(try db.query("SELECT count(*) AS n FROM recon_corrections").first!.decode("n") == 0)
        }
    }

    @Test func atRate50TheRunIsPacedAtTheRateItWasGiven() throws {
        try Self.seededWorld(users: 320) { world, simulator, database in
            // The breaker is lifted: in keyset order this world's revokes come early (26 of the first 129
            // users, 30 of all 197), so whether 0.20 is crossed mid-run depended on which requests of the
            // window finished first, and this test is about the rate.
            let result = try ReceiptReconBinary.run(
                [
                    "run", "--older-than", "0", "--as-of", Self.asOf, "--rate", "50", "--concurrency", "16", "--json",
                    "--max-revoke-ratio", "1",
                ],
                environment: Self.environment(database, simulator))
            #expect([0, 1].contains(result.status), "\(result.output)")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let requests = simulator.stats.requests
            #expect(summary["appleRequests"] as? Int == requests)
            let receipts = try database.connect().query("SELECT count(DISTINCT receipt_data) AS n FROM receipts").first!
                .decode("n", as: Int.self)
            let retries = summary["appleRetries"] as? Int ?? 0
            let hops = summary["appleHops"] as? Int ?? 0
            #expect(requests <= receipts + retries + hops)
            // The pace itself is proved where time is scripted (ThrottleTests, ExchangeDriverTests,
            // SandboxLimitsTests): windows of a loaded machine's arrival stamps can only guess at it, and
            // the bench measures it (over_limit_429). Here: the job paces at the --rate it was given.
            let started = result.stderr.split(separator: "\n").first { $0.contains("event=run.started") } ?? ""
            #expect(started.split(separator: " ").contains("rate=50"), "\(result.stderr)")
        }
    }

    @Test func twoRunsAtOnceAndSupportBesideThemDuplicateNothing() throws {
        let world = Self.world(users: 300)
        let simulator = try Self.started(world, SimulatorOptions(latency: .milliseconds(40)))
        defer { simulator.stop() }
        try TestDatabase.with { database in
            let expected = try Self.seed(world, into: database)
            let environment = Self.environment(database, simulator)
            let first = try ReceiptReconBinary.start(Self.run, environment: environment)
            let second = try ReceiptReconBinary.start(Self.run, environment: environment)
            Thread.sleep(forTimeInterval: 0.8)
            let db = try database.connect()
            let users: [String] = try db.query("SELECT DISTINCT user_id FROM receipts ORDER BY user_id DESC LIMIT 3")
                .map { try $0.decode("user_id") }
            for user in users {
                let support = try ReceiptReconBinary.run(
                    ["verify-user", user, "--as-of", Self.asOf], environment: environment)
                #expect([0, 1].contains(support.status), "\(support.output)")
            }
            let statuses = [try first.wait(timeout: 120).status, try second.wait(timeout: 120).status].sorted()
            #expect(statuses.last == 75 && [0, 1].contains(statuses.first!), "\(statuses)")
            let applied = try Self.applied(db)
            #expect(applied.count == Set(applied).count, "a correction was applied twice")
            #expect(Set(applied) == Set(expected.corrections.map { "\($0.userID) \($0.entitlement) \($0.action)" }))
        }
    }
}
