import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

/// `run` and `verify-user` end to end: the built binary, a real PostgreSQL, and a loopback Apple.
@Suite struct RunCommandTests {
    /// Now, to the second: the scripted Apple answers as of now, and a subscription that lapsed within the
    /// billing-retry window is revoked only when Apple's state speaks for `--as-of` (CONTRACT §9, "As of").
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    static let asOf = ISO8601DateFormatter().string(from: now)

    static func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    static func day(_ offset: Double) -> Date { now.addingTimeInterval(offset * 86_400) }

    /// A small app database that drifted from Apple in every basic way, and Apple's answers for it.
    static func seed(_ database: TestDatabase, _ apple: ScriptedAppleServer) throws {
        let db = try database.connect()
        try db.executeScript(
            """
            INSERT INTO products VALUES ('monthly', 'auto_renewable', 'premium', NULL),
                                        ('lifetime', 'non_consumable', 'pro', NULL),
                                        ('pass', 'non_renewing', 'season_pass', '30 days'),
                                        ('coins', 'consumable', NULL, NULL);
            """)
        func receipt(_ user: String, _ data: String) throws {
            try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(data))")
        }
        func entitlement(_ user: String, _ name: String, active: Bool, expires: Date?, source: String = "app_store")
            throws
        {
            try db.execute(
                """
                INSERT INTO entitlements (user_id, entitlement, active, expires_at, source)
                VALUES (\(user), \(name), \(active), \(expires), \(source))
                """)
        }
        typealias P = ScriptedAppleServer.Purchase
        // Bought, never granted.
        try receipt("u-grant", "UkVDRUlQVC1HUkFOVA==")
        apple.answer(
            "UkVDRUlQVC1HUkFOVA==",
            with: .valid([P(product: "lifetime", transactionID: "t1", originalTransactionID: "t1", purchased: day(-40))]
            ))
        // Expired a month ago, still active.
        try receipt("u-revoke", "UkVDRUlQVC1SRVZPS0U=")
        try entitlement("u-revoke", "premium", active: true, expires: day(30))
        apple.answer(
            "UkVDRUlQVC1SRVZPS0U=",
            with: .valid([
                P(
                    product: "monthly", transactionID: "t2", originalTransactionID: "t2", purchased: day(-60),
                    expires: day(-30))
            ]))
        // Renewed; the app missed it.
        try receipt("u-extend", "UkVDRUlQVC1FWFRFTkQ=")
        try entitlement("u-extend", "premium", active: true, expires: day(-10))
        apple.answer(
            "UkVDRUlQVC1FWFRFTkQ=",
            with: .valid([
                P(
                    product: "monthly", transactionID: "t3", originalTransactionID: "t3", purchased: day(-40),
                    expires: day(-10)),
                P(
                    product: "monthly", transactionID: "t3b", originalTransactionID: "t3", purchased: day(-10),
                    expires: day(20)),
            ]))
        // The latest renewal was refunded; access ends with the one before.
        try receipt("u-shorten", "UkVDRUlQVC1TSE9SVEVO")
        try entitlement("u-shorten", "premium", active: true, expires: day(40))
        apple.answer(
            "UkVDRUlQVC1TSE9SVEVO",
            with: .valid([
                P(
                    product: "monthly", transactionID: "t4", originalTransactionID: "t4", purchased: day(-20),
                    expires: day(10)),
                P(
                    product: "monthly", transactionID: "t4b", originalTransactionID: "t4", purchased: day(10),
                    expires: day(40), cancelled: day(-1)),
            ]))
        // Refunded lifetime purchase.
        try receipt("u-refund", "UkVDRUlQVC1SRUZVTkQ=")
        try entitlement("u-refund", "pro", active: true, expires: nil)
        apple.answer(
            "UkVDRUlQVC1SRUZVTkQ=",
            with: .valid([
                P(
                    product: "lifetime", transactionID: "t5", originalTransactionID: "t5", purchased: day(-90),
                    cancelled: day(-2))
            ]))
        // In agreement: nothing to do.
        try receipt("u-ok", "UkVDRUlQVC1PSw==")
        try entitlement("u-ok", "premium", active: true, expires: day(15))
        apple.answer(
            "UkVDRUlQVC1PSw==",
            with: .valid([
                P(
                    product: "monthly", transactionID: "t6", originalTransactionID: "t6", purchased: day(-15),
                    expires: day(15))
            ]))
        // Granted by another source: never touched.
        try receipt("u-promo", "UkVDRUlQVC1QUk9NTw==")
        try entitlement("u-promo", "premium", active: true, expires: day(100), source: "promo")
        apple.answer("UkVDRUlQVC1QUk9NTw==", with: .valid([]))
        // No receipt at all: flagged, not revoked.
        try entitlement("u-noreceipt", "premium", active: true, expires: day(5))
        // Account deleted at Apple.
        try receipt("u-deleted", "UkVDRUlQVC1ERUxFVEVE")
        try entitlement("u-deleted", "pro", active: true, expires: nil)
        apple.answer("UkVDRUlQVC1ERUxFVEVE", with: .status(21010))
    }

    static let expected: Set<String> = [
        "u-grant pro grant", "u-revoke premium revoke", "u-extend premium extend", "u-shorten premium shorten",
        "u-refund pro revoke", "u-deleted pro revoke",
    ]

    static func corrections(_ db: PostgresConnection, run: Int64? = nil, applied: Bool? = nil) throws -> Set<String> {
        let rows = try db.query("SELECT user_id, entitlement, action, applied, run_id FROM recon_corrections")
        return Set(
            try rows.compactMap { row -> String? in
                if let run, try row.decode("run_id", as: Int64.self) != run { return nil }
                if let applied, try row.decode("applied", as: Bool.self) != applied { return nil }
                return
                    "\(try row.decode("user_id", as: String.self)) \(try row.decode("entitlement", as: String.self)) \(try row.decode("action", as: String.self))"
            })
    }

    /// The arrange block of most nights: a scripted verifyReceipt and a fresh database `seed`ed with the
    /// drifted app and Apple's answers for it, handed to `body`.
    static func drifted<T>(_ body: (ScriptedAppleServer, TestDatabase) throws -> T) throws -> T {
        let apple = try ScriptedAppleServer()
        return try TestDatabase.with { database in
            try seed(database, apple)
            return try body(apple, database)
        }
    }

    static func entitlementsDump(_ db: PostgresConnection) throws -> [String] {
        try db.query("SELECT row(e.*)::text AS r FROM entitlements e ORDER BY user_id, entitlement").map {
            try $0.decode("r")
        }
    }

    static func run(_ database: TestDatabase, _ apple: ScriptedAppleServer, _ extra: [String] = []) throws
        -> ReceiptReconBinary.Result
    {
        try ReceiptReconBinary.run(
            ["run", "--older-than", "0", "--as-of", asOf, "--rate", "200", "--max-attempts", "1"] + extra,
            environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
    }

    @Test func correctsDriftThenASecondRunChangesNothing() throws {
        try Self.drifted { apple, database in
            let db = try database.connect()
            let first = try Self.run(database, apple, ["--json"])
            #expect(first.status == 0, "\(first.output)")
            #expect(try Self.corrections(db, applied: true) == Self.expected)
            let summary = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
            #expect(summary?["status"] as? String == "completed")

            // The entitlements now say what Apple says.
            let rows = try Dictionary(
                uniqueKeysWithValues: db.query(
                    "SELECT user_id || '/' || entitlement AS k, active, expires_at FROM entitlements"
                )
                .map {
                    (
                        try $0.decode("k", as: String.self),
                        (try $0.decode("active", as: Bool.self), try $0.decode("expires_at", as: Date?.self))
                    )
                })
            #expect(rows["u-grant/pro"]?.0 == true)
            #expect(rows["u-revoke/premium"]?.0 == false)
            #expect(rows["u-extend/premium"]?.1 == Self.day(20))
            #expect(rows["u-shorten/premium"]?.1 == Self.day(10))
            #expect(rows["u-promo/premium"]?.0 == true)
            #expect(rows["u-noreceipt/premium"]?.0 == true)

            let flags = Set(
                try db.query("SELECT user_id || ' ' || kind AS f FROM recon_flags").map {
                    try $0.decode("f", as: String.self)
                })
            #expect(flags.contains("u-noreceipt entitlement_without_receipt"))
            #expect(flags.contains("u-refund refunded"))
            #expect(flags.contains("u-shorten refunded"))
            #expect(flags.contains("u-deleted invalid_receipt"))

            let environment = ["DATABASE_URL": database.conninfo]
            let report = try ReceiptReconBinary.run(["report", "--last"], environment: environment)
            #expect(report.status == 0, "\(report.output)")
            #expect(report.stdout.contains("Corrections applied: 6"))
            #expect(report.stdout.contains("revoke: 3"))
            let reportJSON = try ReceiptReconBinary.run(["report", "--json"], environment: environment)
            let parsed = try JSONSerialization.jsonObject(with: Data(reportJSON.stdout.utf8)) as? [String: Any]
            #expect((parsed?["flags"] as? [String: Int])?["entitlement_without_receipt"] == 1)
            #expect(try ReceiptReconBinary.run(["report", "--run", "999"], environment: environment).status == 65)

            let second = try Self.run(database, apple)
            #expect(second.status == 0, "\(second.output)")
            let secondRun: Int64 = try db.query("SELECT max(id) AS id FROM recon_runs").first!.decode("id")
            #expect(try Self.corrections(db, run: secondRun).isEmpty)
        }
    }

    /// Apple says the user bought `pro`, but the row for `pro` belongs to another source: the job neither
    /// touches it nor records a correction it could not apply.
    @Test func anEntitlementHeldByAnotherSourceGetsNoCorrection() throws {
        try Self.drifted { apple, database in
            let db = try database.connect()
            try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES ('u-gift', 'UkVDRUlQVC1HSUZU')")
            try db.execute(
                """
                INSERT INTO entitlements (user_id, entitlement, active, source) VALUES ('u-gift', 'pro', false, 'gift')
                """)
            apple.answer(
                "UkVDRUlQVC1HSUZU",
                with: .valid([
                    ScriptedAppleServer.Purchase(
                        product: "lifetime", transactionID: "g1", originalTransactionID: "g1", purchased: Self.day(-5))
                ]))
            let result = try Self.run(database, apple)
            #expect(result.status == 0, "\(result.output)")
            #expect(try Self.corrections(db) == Self.expected)
            let row = try db.query("SELECT active, source FROM entitlements WHERE user_id = 'u-gift'").first!
            #expect(try row.decode("active") == false)
            #expect(try row.decode("source") == "gift")
        }
    }

    @Test func dryRunChangesNoEntitlementAndPlansWhatTheRealRunApplies() throws {
        try Self.drifted { apple, database in
            let db = try database.connect()
            let before = try Self.entitlementsDump(db)
            let dry = try Self.run(database, apple, ["--dry-run"])
            #expect(dry.status == 0, "\(dry.output)")
            #expect(try Self.entitlementsDump(db) == before)
            #expect(try db.query("SELECT count(*) AS n FROM recon_receipt_state").first!.decode("n") == 0)
            #expect(try db.query("SELECT count(*) AS n FROM recon_transactions").first!.decode("n") == 0)
            #expect(try Self.corrections(db, applied: false) == Self.expected)
            let wet = try Self.run(database, apple)
            #expect(wet.status == 0)
            #expect(try Self.corrections(db, applied: true) == Self.expected)
        }
    }

    @Test func aRunWhileTheNightlyLockIsHeldExits75AndChangesNothing() throws {
        try Self.drifted { apple, database in
            let holder = try database.connect()
            #expect(try holder.tryAdvisoryLock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))
            let before = try Self.entitlementsDump(holder)
            let result = try Self.run(database, apple)
            #expect(result.status == 75, "\(result.output)")
            #expect(result.stderr.contains("lock"))
            #expect(try holder.query("SELECT count(*) AS n FROM recon_runs").first!.decode("n") == 0)
            #expect(try Self.entitlementsDump(holder) == before)
            // Another shard has its own lock.
            let otherShard = try Self.run(database, apple, ["--shard", "1/2"])
            #expect(otherShard.status == 0, "\(otherShard.output)")
        }
    }

    static func seedMany(_ database: TestDatabase, users: Int) throws {
        let db = try database.connect()
        try db.execute("INSERT INTO products VALUES ('lifetime', 'non_consumable', 'pro', NULL)")
        let rows: [[any PostgresEncodable]] = (0..<users).map {
            ["user-\($0)", Data("receipt-\($0)".utf8).base64EncodedString()]
        }
        try db.copy(into: "receipts", columns: ["user_id", "receipt_data"], rows: rows)
        let active: [[any PostgresEncodable]] = (0..<users).map { ["user-\($0)", "pro", true] }
        try db.copy(into: "entitlements", columns: ["user_id", "entitlement", "active"], rows: active)
    }

    @Test(arguments: [ScriptedAppleServer.Answer.status(21009), .serviceUnavailable])
    func anAppleOutageTripsTheBreakerWithoutChangingEntitlements(answer: ScriptedAppleServer.Answer) throws {
        let apple = try ScriptedAppleServer()
        apple.answerEverythingElse(with: answer)
        try TestDatabase.with { database in
            try Self.seedMany(database, users: 150)
            let db = try database.connect()
            let before = try Self.entitlementsDump(db)
            let result = try Self.run(database, apple, ["--concurrency", "16"])
            #expect(result.status == 69, "\(result.output)")
            #expect(try Self.entitlementsDump(db) == before)
            let run = try db.query("SELECT status, abort_reason FROM recon_runs").first!
            #expect(try run.decode("status") == "aborted")
            #expect(try run.decode("abort_reason", as: String?.self)?.contains("--max-unverified-ratio") == true)
        }
    }

    @Test func aWrongSharedSecretAbortsWithExit78BeforeAnyCorrection() throws {
        let apple = try ScriptedAppleServer()
        apple.answerEverythingElse(with: .status(21004))
        try TestDatabase.with { database in
            try Self.seedMany(database, users: 150)
            let db = try database.connect()
            try db.execute("UPDATE entitlements SET active = false WHERE user_id IN ('user-1', 'user-2')")
            apple.answer(
                Data("receipt-1".utf8).base64EncodedString(),
                with: .valid([
                    ScriptedAppleServer.Purchase(
                        product: "lifetime", transactionID: "x1", originalTransactionID: "x1", purchased: Self.day(-3))
                ]))
            let result = try Self.run(database, apple, ["--concurrency", "4"])
            #expect(result.status == 78, "\(result.output)")
            #expect(try db.query("SELECT count(*) AS n FROM recon_corrections").first!.decode("n") == 0)
            #expect(try db.query("SELECT status FROM recon_runs").first!.decode("status") == "aborted")
        }
    }

    @Test func aRunLeftRunningByADeadProcessIsMarkedInterrupted() throws {
        try Self.drifted { apple, database in
            let db = try database.connect()
            try db.execute(
                "INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'running', false, now())")
            let result = try Self.run(database, apple)
            #expect(result.status == 0, "\(result.output)")
            let statuses: [String] = try db.query("SELECT status FROM recon_runs ORDER BY id").map {
                try $0.decode("status")
            }
            #expect(statuses == ["interrupted", "completed"])
        }
    }

    /// The run records the limits it ran under, so an odd night can be tied to them.
    @Test func theRunRecordsItsLimits() throws {
        try Self.drifted { apple, database in
            let result = try Self.run(
                database, apple,
                ["--max-answer-bytes", "2000000", "--max-retry-wait", "30", "--db-reconnect-window", "5"])
            #expect(result.status == 0, "\(result.output)")
            let row = try #require(
                try database.connect().query(
                    """
                    SELECT options->>'maxAnswerBytes' AS bytes, options->>'maxRetryWait' AS wait,
                           options->>'reconnectWindow' AS window
                    FROM recon_runs ORDER BY id DESC LIMIT 1
                    """
                ).first)
            #expect(try row.decode("bytes", as: String.self) == "2000000")
            #expect(try Double(row.decode("wait", as: String.self)) == 30)
            #expect(try Double(row.decode("window", as: String.self)) == 5)
        }
    }

    /// URLSession stays selectable (flag or variable, the flag winning) and reaches the same corrections;
    /// the run records which client it used.
    @Test func theHTTPClientIsSelectableAndRecorded() throws {
        try Self.drifted { apple, database in
            let db = try database.connect()
            func lastClient() throws -> String? {
                try db.query("SELECT options->>'httpClient' AS c FROM recon_runs ORDER BY id DESC LIMIT 1").first!
                    .decode("c")
            }
            let urlSession = try Self.run(database, apple, ["--http-client", "urlsession"])
            #expect(urlSession.status == 0, "\(urlSession.output)")
            #expect(try Self.corrections(db, applied: true) == Self.expected)
            #expect(try lastClient() == "urlsession")

            let environment = apple.environment.merging([
                "DATABASE_URL": database.conninfo, "RECON_HTTP_CLIENT": "urlsession",
            ]) { $1 }
            let overridden = try ReceiptReconBinary.run(
                ["verify-user", "u-extend", "--as-of", Self.asOf, "--http-client", "curl"],
                environment: environment)
            #expect(overridden.status == 0, "\(overridden.output)")
            #expect(try lastClient() == "curl")
            let fromVariable = try ReceiptReconBinary.run(
                ["verify-user", "u-extend", "--as-of", Self.asOf], environment: environment)
            #expect(fromVariable.status == 0, "\(fromVariable.output)")
            #expect(try lastClient() == "urlsession")

            let byDefault = try Self.run(database, apple)
            #expect(byDefault.status == 0, "\(byDefault.output)")
            #expect(try lastClient() == "curl")
        }
    }

    @Test func verifyUserShowsBeforeAndAfterWithReasons() throws {
        try Self.drifted { apple, database in
            let environment = apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
            let result = try ReceiptReconBinary.run(
                ["verify-user", "u-extend", "--as-of", Self.asOf], environment: environment)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout.contains("Before:"))
            #expect(result.stdout.contains("After:"))
            #expect(result.stdout.contains("extend premium (reason: renewal)"))

            let unknown = try ReceiptReconBinary.run(["verify-user", "nobody"], environment: environment)
            #expect(unknown.status == 65)
            #expect(unknown.stderr.contains("no receipts and no entitlements"))

            let hostile = try ReceiptReconBinary.run(
                ["verify-user", "x'; DROP TABLE receipts; --"], environment: environment)
            #expect(hostile.status == 65)
            let db = try database.connect()
            #expect(try db.query("SELECT count(*) AS n FROM receipts").first!.decode("n") == 8)
        }
    }
}

extension ScriptedAppleServer.Answer: CustomTestStringConvertible {
    public var testDescription: String {
        switch self {
        case .status(let status, _): "status \(status)"
        case .http(let status, _, _): "HTTP \(status)"
        case .valid: "valid"
        case .silence: "silence"
        case .delayed(_, let answer): "delayed \(answer.testDescription)"
        case .together(let count, let answer): "\(answer.testDescription) once \(count) are held together"
        }
    }
}
