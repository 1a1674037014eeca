import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// `run --backend server-api`, the built binary against a scripted App Store Server API and a real
/// database (CONTRACT §9): one history per customer, grace periods and billing retry from the
/// subscription statuses, refunds, misrouted and unknown ids, and the answers that must never revoke
/// anything (a refused key, a 429 storm, a forged signature).
@Suite struct ServerAPIRunTests {
    /// Now, to the second: Apple's answers (signed now) speak for this `--as-of`, so subscription
    /// statuses are asked for and used (CONTRACT §9, "As of").
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    static let asOf = ISO8601DateFormatter().string(from: now)
    static func day(_ offset: Double) -> Date { now.addingTimeInterval(offset * 86_400) }
    typealias Transaction = ServerAPIScriptTransaction

    /// A server whose chain covers both the rows' signing dates (around `asOf`) and its answers' (now).
    static func server() throws -> ScriptedServerAPI {
        try ScriptedServerAPI(chainValidity: day(-400)...max(Date(), now).addingTimeInterval(400 * 86_400))
    }

    /// An app receipt naming one purchase, in real format, as the device sent it: signed by `api`'s
    /// chain, whose root the run trusts (`APPLE_ROOT_CERTIFICATES`) in place of Apple Inc. Root CA.
    static func appReceipt(_ api: ScriptedServerAPI, _ id: String, original: String? = nil, expires: Date) -> String {
        api.signedAppReceipt(
            LocalReceipt(
                environment: "Production", bundleID: "com.example", creationDate: day(-40),
                inApp: [
                    LocalReceipt.InAppPurchase(
                        quantity: 1, productID: "monthly", transactionID: id,
                        purchaseDate: expires.addingTimeInterval(-30 * 86_400),
                        originalTransactionID: original ?? id, productType: 3, expiresDate: expires)
                ]))
    }

    static func seedTables(_ db: PostgresConnection) throws {
        try db.executeScript("INSERT INTO products VALUES ('monthly', 'auto_renewable', 'premium', NULL);")
    }

    static func receipt(_ db: PostgresConnection, _ user: String, _ data: String) throws {
        try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(data))")
    }

    static func premium(_ db: PostgresConnection, _ user: String, expires: Date) throws {
        try db.execute(
            """
            INSERT INTO entitlements (user_id, entitlement, active, expires_at, source)
            VALUES (\(user), 'premium', true, \(expires), 'app_store')
            """)
    }

    static func run(_ database: TestDatabase, _ api: ScriptedServerAPI, _ extra: [String] = [])
        throws -> ReceiptReconBinary.Result
    {
        try ReceiptReconBinary.run(
            ["run", "--backend", "server-api", "--older-than", "0", "--as-of", asOf, "--json", "--max-attempts", "2"]
                + extra,
            environment: api.environment.merging(["DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example"])
            {
                $1
            })
    }

    static func strings(_ db: PostgresConnection, _ sql: PostgresQuery) throws -> Set<String> {
        Set(try db.query(sql).map { try $0.decode("s", as: String.self) })
    }

    static func corrections(_ db: PostgresConnection) throws -> Set<String> {
        try strings(
            db, "SELECT user_id || ' ' || entitlement || ' ' || action || ' ' || reason AS s FROM recon_corrections")
    }

    static func outcomes(_ db: PostgresConnection) throws -> Set<String> {
        try strings(
            db,
            "SELECT r.user_id || ' ' || x.outcome AS s FROM recon_results x JOIN receipts r ON r.id = x.receipt_id")
    }

    @Test func eachCustomerIsJudgedFromItsHistoryAndStatuses() throws {
        let api = try Self.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seedTables(db)
            // One customer, two rows: a StoreKit 2 JWS and an older app receipt of the same subscription.
            try Self.receipt(
                db, "u-shared",
                api.sign(
                    Transaction(id: "2001", purchased: Self.day(-60), expires: Self.day(-30), signed: Self.day(-60))))
            try Self.receipt(db, "u-shared", Self.appReceipt(api, "2002", original: "2001", expires: Self.day(20)))
            try Self.premium(db, "u-shared", expires: Self.day(20))
            api.scriptEveryID(
                .production, .transactionHistory,
                [
                    .history([
                        Transaction(id: "2001", purchased: Self.day(-60), expires: Self.day(-30)),
                        Transaction(id: "2002", originalID: "2001", purchased: Self.day(-30), expires: Self.day(20)),
                    ])
                ])
            // Billing grace period: lapsed three days ago, access until the grace period ends.
            try Self.receipt(db, "u-grace", Self.appReceipt(api, "3001", expires: Self.day(-3)))
            try Self.premium(db, "u-grace", expires: Self.day(-3))
            let lapsed = Transaction(id: "3001", purchased: Self.day(-33), expires: Self.day(-3))
            api.script(.production, .transactionHistory, id: "3001", [.history([lapsed])])
            api.script(
                .production, .subscriptionStatuses, id: "3001",
                [.statuses([ServerAPIScriptStatus(status: 4, transaction: lapsed, gracePeriodExpires: Self.day(13))])])
            // Billing retry without grace: no access.
            try Self.receipt(db, "u-retry", Self.appReceipt(api, "4001", expires: Self.day(-3)))
            try Self.premium(db, "u-retry", expires: Self.day(-3))
            let retrying = Transaction(id: "4001", purchased: Self.day(-33), expires: Self.day(-3))
            api.script(.production, .transactionHistory, id: "4001", [.history([retrying])])
            api.script(
                .production, .subscriptionStatuses, id: "4001",
                [.statuses([ServerAPIScriptStatus(status: 3, transaction: retrying)])])
            // Refunded two days ago.
            try Self.receipt(db, "u-refund", Self.appReceipt(api, "5001", expires: Self.day(10)))
            try Self.premium(db, "u-refund", expires: Self.day(10))
            api.script(
                .production, .transactionHistory, id: "5001",
                [
                    .history([
                        Transaction(id: "5001", purchased: Self.day(-20), expires: Self.day(10), revoked: Self.day(-2))
                    ])
                ])
            // Known only to the sandbox.
            try Self.receipt(db, "u-sandbox", Self.appReceipt(api, "6001", expires: Self.day(10)))
            try Self.premium(db, "u-sandbox", expires: Self.day(10))
            api.script(.production, .transactionHistory, id: "6001", [.error(4_040_010, status: 404)])
            api.script(
                .sandbox, .transactionHistory, id: "6001",
                [.history([Transaction(id: "6001", purchased: Self.day(-20), expires: Self.day(10))])])
            // Known nowhere (4040010 in both), but the receipt is Apple's (its PKCS#7 verified): a permanent
            // unverified that keeps premium, never invalid (CONTRACT §9).
            try Self.receipt(db, "u-unknown", Self.appReceipt(api, "7001", expires: Self.day(10)))
            try Self.premium(db, "u-unknown", expires: Self.day(10))
            api.script(.production, .transactionHistory, id: "7001", [.error(4_040_010, status: 404)])
            api.script(.sandbox, .transactionHistory, id: "7001", [.error(4_040_010, status: 404)])
            // A forged answer: believed in nothing, least of all a refund.
            try Self.receipt(db, "u-forged", Self.appReceipt(api, "8001", expires: Self.day(10)))
            try Self.premium(db, "u-forged", expires: Self.day(10))
            api.script(
                .production, .transactionHistory, id: "8001",
                [
                    .history([
                        Transaction(
                            id: "8001", purchased: Self.day(-20), expires: Self.day(10), revoked: Self.day(-1),
                            forged: true)
                    ])
                ])
            // Another app's purchase.
            try Self.receipt(db, "u-bundle", Self.appReceipt(api, "9001", expires: Self.day(10)))
            try Self.premium(db, "u-bundle", expires: Self.day(10))
            api.script(
                .production, .transactionHistory, id: "9001",
                [
                    .history([
                        Transaction(id: "9001", bundleID: "com.other", purchased: Self.day(-20), expires: Self.day(10))
                    ])
                ])

            // One user per case, most of them take-aways: a world the revoke breaker would rightly stop
            // (5 of 8 users), lifted here because each case's verdict is what is under test.
            let result = try Self.run(database, api, ["--max-revoke-ratio", "1"])
            #expect([0, 1].contains(result.status), "\(result.output)")

            #expect(
                try Self.outcomes(db) == [
                    "u-shared valid", "u-grace valid", "u-retry valid", "u-refund valid", "u-sandbox misrouted",
                    "u-unknown unverified", "u-forged unverified", "u-bundle invalid",
                ])
            // Both of u-shared's rows were answered by one history request.
            #expect(
                try Self.strings(
                    db,
                    "SELECT count(*)::text AS s FROM recon_results x JOIN receipts r ON r.id = x.receipt_id WHERE r.user_id = 'u-shared' AND x.outcome = 'valid'"
                ) == ["2"])
            #expect(
                api.received.filter { $0.endpoint == .transactionHistory && ["2001", "2002"].contains($0.id) }.count
                    == 1)
            // Statuses only for the subscriptions that lapsed recently.
            #expect(Set(api.received.filter { $0.endpoint == .subscriptionStatuses }.map(\.id)) == ["3001", "4001"])

            let corrections = try Self.corrections(db)
            #expect(corrections.contains("u-grace premium extend grace_period"), "\(corrections)")
            #expect(corrections.contains("u-retry premium revoke expired"), "\(corrections)")
            #expect(corrections.contains("u-refund premium revoke refund"), "\(corrections)")
            #expect(
                !corrections.contains {
                    $0.hasPrefix("u-shared ") || $0.hasPrefix("u-forged ") || $0.hasPrefix("u-unknown ")
                },
                "\(corrections)")
            let flags = try Self.strings(db, "SELECT user_id || ' ' || kind AS s FROM recon_flags")
            #expect(
                flags.isSuperset(of: [
                    "u-sandbox sandbox_in_production", "u-unknown unverified", "u-forged unverified",
                    "u-bundle bundle_mismatch",
                ]), "\(flags)")
            let graceEnd = try db.query("SELECT expires_at FROM entitlements WHERE user_id = 'u-grace' AND active")
                .first?.decode("expires_at", as: Date.self)
            #expect(
                graceEnd.map { abs($0.timeIntervalSince(Self.day(13))) < 1 } == true, "\(String(describing: graceEnd))")

            // The key appears nowhere: not in what the run printed, not in its recorded options.
            let options = try Self.strings(db, "SELECT options::text AS s FROM recon_runs")
            for line in api.keyLines {
                #expect(!result.output.contains(line))
                #expect(!options.contains { $0.contains(line) })
            }
            #expect(api.received.allSatisfy { $0.token?.signatureVerifies == true && $0.token?.bid == "com.example" })
        }
    }

    /// The refund user alone: what the failure cases below must never revoke.
    static func seedRefund(_ database: TestDatabase, _ api: ScriptedServerAPI) throws -> PostgresConnection {
        let db = try database.connect()
        try seedTables(db)
        try receipt(db, "u-refund", appReceipt(api, "5001", expires: day(10)))
        try premium(db, "u-refund", expires: day(10))
        try receipt(db, "u-lapsed", appReceipt(api, "5002", expires: day(-90)))
        try premium(db, "u-lapsed", expires: day(10))
        return db
    }

    /// A key Apple refuses (401 even with a fresh token) and an app identifier it does not know
    /// (4000002) are configuration errors, whatever the receipts say.
    @Test(arguments: [("401", ScriptedServerAPI.Answer.unauthorized), ("4000002", .error(4_000_002, status: 400))])
    func aConfigurationAppleRefusesIsExit78BeforeAnyCorrection(_ named: String, _ answer: ScriptedServerAPI.Answer)
        throws
    {
        let api = try Self.server()
        api.scriptEverything([answer])
        try TestDatabase.with { database in
            let db = try Self.seedRefund(database, api)
            let result = try Self.run(database, api)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains(named), "\(result.stderr)")
            #expect(try Self.strings(db, "SELECT count(*)::text AS s FROM recon_corrections") == ["0"])
            #expect(try Self.strings(db, "SELECT count(*)::text AS s FROM entitlements WHERE active") == ["2"])
            for line in api.keyLines { #expect(!result.output.contains(line)) }
        }
    }

    /// A typo in APPLE_BUNDLE_IDS makes Apple refuse every token (its `bid` names no app of the key's team):
    /// the 401's message names that bundle id beside the key's settings, not the key alone.
    @Test func a401NamesTheTokensBundleIDAmongTheSuspects() throws {
        let api = try Self.server()
        api.scriptBundleID("com.exmaple", [.unauthorized])
        try TestDatabase.with { database in
            let db = try Self.seedRefund(database, api)
            let result = try ReceiptReconBinary.run(
                ["run", "--backend", "server-api", "--older-than", "0", "--as-of", Self.asOf, "--max-attempts", "2"],
                environment: api.environment.merging([
                    "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.exmaple",
                    "APPLE_APP_APPLE_IDS": "com.exmaple=\(ServerAPIScriptNotification.scriptedAppAppleID)",
                ]) { $1 })
            #expect(result.status == 78, "\(result.output)")
            #expect(api.received.contains { $0.token?.bid == "com.exmaple" })
            let line = try #require(
                result.stderr.split(separator: "\n").last { $0.contains("HTTP 401") }, "\(result.stderr)")
            #expect(line.contains("bundle id com.exmaple") && line.contains("bid"), "\(line)")
            for suspect in ["APPLE_BUNDLE_IDS", "API key file", "APPLE_API_KEY_ID", "APPLE_API_ISSUER_ID"] {
                #expect(line.contains(suspect), "\(suspect) is not named: \(line)")
            }
            #expect(try Self.strings(db, "SELECT count(*)::text AS s FROM recon_corrections") == ["0"])
            for line in api.keyLines { #expect(!result.output.contains(line)) }
        }
    }

    @Test func a429StormRevokesNothing() throws {
        let api = try Self.server()
        api.scriptEverything([.tooManyRequests(retryAfter: .milliseconds(50))])
        try TestDatabase.with { database in
            let db = try Self.seedRefund(database, api)
            let result = try Self.run(database, api)
            // Every answer a 429: Apple refusing the night, at any size (69), and nothing written.
            #expect(result.status == 69, "\(result.output)")
            #expect(result.stderr.contains("Apple unreachable or refusing: 2 of 2 receipts"), "\(result.stderr)")
            #expect(
                try Self.strings(db, "SELECT count(*)::text AS s FROM recon_corrections WHERE action = 'revoke'") == [
                    "0"
                ])
            #expect(try Self.outcomes(db).isEmpty)
            #expect(api.receivedAboutPurchases.count == 4, "two attempts for each of the two users")
        }
    }

    @Test func theServerAPIBackendWithoutAKeyFileIs78NamingIt() throws {
        let api = try Self.server()
        try TestDatabase.with { database in
            _ = try Self.seedRefund(database, api)
            var environment = api.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
            environment["APPLE_API_KEY_FILE"] = nil
            let result = try ReceiptReconBinary.run(
                ["run", "--backend", "server-api", "--older-than", "0", "--as-of", Self.asOf],
                environment: environment)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains("APPLE_API_KEY_FILE"), "\(result.stderr)")
            #expect(api.received.isEmpty)
        }
    }

    /// Without APPLE_BUNDLE_IDS no app may be named in a JWT (a row's own bundle id is never trusted for
    /// it): 78 before anything is asked, naming the setting.
    @Test func theServerAPIBackendWithoutBundleIDsIs78NamingThem() throws {
        let api = try Self.server()
        try TestDatabase.with { database in
            _ = try Self.seedRefund(database, api)
            let result = try ReceiptReconBinary.run(
                ["run", "--backend", "server-api", "--older-than", "0", "--as-of", Self.asOf],
                environment: api.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains("APPLE_BUNDLE_IDS"), "\(result.stderr)")
            #expect(api.received.isEmpty)
        }
    }
}
