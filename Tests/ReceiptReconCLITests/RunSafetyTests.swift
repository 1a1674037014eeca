import Foundation
import Postgres
import Testing
import TestSupport

/// The guarantees cron relies on (CONTRACT §6): kill -9 at any moment, two runs at once, support's
/// verify-user beside the nightly run, and the rate limit.
@Suite struct RunSafetyTests {
    static let asOf = "2026-11-01T00:00:00Z"
    static let users = 200

    /// 200 users, each with one receipt: a third bought and never granted (grant), one in ten refunded
    /// but still active (revoke), the rest in agreement. Apple answers after `delay`.
    static func seed(_ database: TestDatabase, _ apple: FakeApple, delay: Duration) throws {
        let db = try database.connect()
        try db.execute("INSERT INTO products VALUES ('lifetime', 'non_consumable', 'pro', NULL)")
        var receipts: [[any PostgresEncodable]] = []
        var entitlements: [[any PostgresEncodable]] = []
        let purchased = ISO8601DateFormatter().date(from: "2026-09-01T00:00:00Z")!
        for index in 0..<users {
            let user = String(format: "user-%03d", index)
            let data = Data("receipt-\(index)".utf8).base64EncodedString()
            receipts.append([user, data])
            let refunded = index % 10 == 0
            apple.answer(data, with: .slow(delay, [FakeApple.Purchase(
                product: "lifetime", transactionID: "t\(index)", originalTransactionID: "t\(index)", purchased: purchased,
                cancelled: refunded ? purchased.addingTimeInterval(86_400) : nil)]))
            if refunded || index % 3 != 0 { entitlements.append([user, "pro", true]) }
        }
        try db.copy(into: "receipts", columns: ["user_id", "receipt_data"], rows: receipts)
        try db.copy(into: "entitlements", columns: ["user_id", "entitlement", "active"], rows: entitlements)
    }

    static func environment(_ database: TestDatabase, _ apple: FakeApple) -> [String: String] {
        apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
    }

    static let runArguments = ["run", "--older-than", "0", "--as-of", asOf, "--rate", "1000", "--concurrency", "8",
                               "--max-attempts", "1"]

    static func appliedCorrections(_ db: PostgresConnection) throws -> [String] {
        try db.query("""
            SELECT user_id || ' ' || entitlement || ' ' || action AS c FROM recon_corrections WHERE applied ORDER BY 1
            """).map { try $0.decode("c") }
    }

    static func entitlementState(_ db: PostgresConnection) throws -> [String] {
        try db.query("""
            SELECT user_id || ' ' || entitlement || ' ' || active || ' ' || coalesce(expires_at::text, '-') AS e
            FROM entitlements ORDER BY user_id, entitlement
            """).map { try $0.decode("e") }
    }

    @Test func killedAtFiveMomentsThenRerunEndsExactlyLikeOneUninterruptedRun() throws {
        let apple = try FakeApple()
        let (reference, referenceState) = try TestDatabase.with { database in
            try Self.seed(database, apple, delay: .milliseconds(100))
            let result = try ReceiptReconBinary.run(Self.runArguments, environment: Self.environment(database, apple))
            #expect(result.status == 0, "\(result.output)")
            let db = try database.connect()
            return (try Self.appliedCorrections(db), try Self.entitlementState(db))
        }
        #expect(reference.count == 60 + 20)  // 60 grants (index % 3 == 0 but not % 10), 20 revokes (index % 10 == 0)

        try TestDatabase.with { database in
            try Self.seed(database, apple, delay: .milliseconds(100))
            let environment = Self.environment(database, apple)
            for seconds in [0.4, 1.4, 1.7, 2.0, 2.3] {
                let child = try ReceiptReconBinary.start(Self.runArguments, environment: environment)
                Thread.sleep(forTimeInterval: seconds)
                child.signal(SIGKILL)
                _ = try child.wait(timeout: 30)
            }
            let final = try ReceiptReconBinary.run(Self.runArguments, environment: environment)
            #expect(final.status == 0, "\(final.output)")
            let db = try database.connect()
            let applied = try Self.appliedCorrections(db)
            #expect(Set(applied) == Set(reference))
            #expect(applied.count == reference.count, "a correction was applied twice")
            #expect(try Self.entitlementState(db) == referenceState)
            let statuses: [String] = try db.query("SELECT status FROM recon_runs ORDER BY id").map { try $0.decode("status") }
            #expect(statuses == Array(repeating: "interrupted", count: 5) + ["completed"])
            // Some kills landed after writes had started, so the rerun really resumed work.
            let finalRun: Int64 = try db.query("SELECT max(id) AS id FROM recon_runs").first!.decode("id")
            let appliedByFinal: Int = try db.query(
                "SELECT count(*) AS n FROM recon_corrections WHERE applied AND run_id = \(finalRun)").first!.decode("n")
            #expect(appliedByFinal < reference.count)
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalDrainsInFlightWorkAndExits75(signal: Int32) throws {
        let apple = try FakeApple()
        try TestDatabase.with { database in
            try Self.seed(database, apple, delay: .milliseconds(100))
            let environment = Self.environment(database, apple).merging(["APPLE_SHARED_SECRET": "0123-shared-secret"]) { $1 }
            let run = try ReceiptReconBinary.start(Self.runArguments, environment: environment)
            Thread.sleep(forTimeInterval: 1.8)
            run.signal(signal)
            let result = try run.wait(timeout: 60)
            #expect(result.status == 75, "\(result.stderrText)")
            let db = try database.connect()
            let row = try db.query("SELECT status, abort_reason FROM recon_runs").first!
            #expect(try row.decode("status") == "interrupted")
            #expect(try row.decode("abort_reason", as: String?.self)?.contains(signal == SIGTERM ? "SIGTERM" : "SIGINT") == true)
            // Every user it wrote is whole: a result for each receipt and the user's corrections with it.
            let written: Int = try db.query("SELECT count(*) AS n FROM recon_results").first!.decode("n")
            let states: Int = try db.query("SELECT count(*) AS n FROM recon_receipt_state").first!.decode("n")
            #expect(written == states)
            #expect(written < Self.users)
            // Logs and summary never carry the secret or receipt data.
            let output = result.stdoutText + result.stderrText
            #expect(!output.contains("0123-shared-secret"))
            #expect(!output.contains(Data("receipt-1".utf8).base64EncodedString()))
        }
    }

    @Test func twoRunsAtOnceOneExits75HavingChangedNothing() throws {
        let apple = try FakeApple()
        try TestDatabase.with { database in
            try Self.seed(database, apple, delay: .milliseconds(50))
            let environment = Self.environment(database, apple)
            let first = try ReceiptReconBinary.start(Self.runArguments, environment: environment)
            let second = try ReceiptReconBinary.start(Self.runArguments, environment: environment)
            let results = [try first.wait(timeout: 120), try second.wait(timeout: 120)]
            #expect(results.map(\.status).sorted() == [0, 75], "\(results.map(\.stderrText))")
            let db = try database.connect()
            #expect(try db.query("SELECT count(*) AS n FROM recon_runs").first!.decode("n") == 1)
            #expect(try db.query("SELECT count(DISTINCT run_id) AS n FROM recon_corrections").first!.decode("n") == 1)
        }
    }

    @Test func verifyUserBesideTheNightlyRunDuplicatesNoCorrection() throws {
        let apple = try FakeApple()
        try TestDatabase.with { database in
            try Self.seed(database, apple, delay: .milliseconds(60))
            let environment = Self.environment(database, apple)
            let nightly = try ReceiptReconBinary.start(Self.runArguments, environment: environment)
            Thread.sleep(forTimeInterval: 0.5)
            var supportResults: [Int32] = []
            for user in ["user-003", "user-150", "user-010"] {
                let support = try ReceiptReconBinary.run(["verify-user", user, "--as-of", Self.asOf], environment: environment)
                supportResults.append(support.status)
            }
            #expect(supportResults == [0, 0, 0])
            #expect(try nightly.wait(timeout: 120).status == 0)
            let db = try database.connect()
            let duplicates: Int = try db.query("""
                SELECT count(*) AS n FROM (SELECT user_id, entitlement FROM recon_corrections WHERE applied
                                           GROUP BY 1, 2 HAVING count(*) > 1) d
                """).first!.decode("n")
            #expect(duplicates == 0)
            #expect(try Self.appliedCorrections(db).count == 80)
        }
    }

    @Test func theRateLimitHoldsForEveryOneSecondWindow() throws {
        let apple = try FakeApple()
        try TestDatabase.with { database in
            try Self.seed(database, apple, delay: .milliseconds(5))
            let result = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--rate", "50", "--concurrency", "16"],
                environment: Self.environment(database, apple))
            #expect(result.status == 0, "\(result.output)")
            let times = apple.requestTimes.sorted()
            #expect(times.count == Self.users)  // one request per distinct receipt: no retries, no hops here
            var busiest = 0
            var start = 0
            for end in times.indices {
                while times[end].timeIntervalSince(times[start]) >= 1 { start += 1 }
                busiest = max(busiest, end - start + 1)
            }
            // rate + burst (5 % of the rate, at least 1), plus one for timestamps taken on arrival.
            #expect(busiest <= 50 + 2 + 1, "busiest second had \(busiest) requests")
        }
    }
}
