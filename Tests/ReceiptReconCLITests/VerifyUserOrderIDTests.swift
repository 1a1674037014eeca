import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// `verify-user --order-id ID` through the built binary against a scripted App Store Server API and a
/// real database (CONTRACT §3): Apple's Look Up Order ID names the order's transactions, the users
/// whose stored rows hold them are verified as `verify-user USER_ID` verifies one; an order no row
/// holds, or one Apple calls invalid, is said plainly (65); a forged answer is never believed.
@Suite struct VerifyUserOrderIDTests {
    typealias Transaction = ServerAPIScriptTransaction
    static let asOf = ServerAPIRunTests.asOf
    static func day(_ offset: Double) -> Date { ServerAPIRunTests.day(offset) }

    static let subscription = Transaction(id: "4001", purchased: day(-2), expires: day(28))
    static let lifetime = Transaction(id: "4002", product: "lifetime", type: "Non-Consumable", purchased: day(-2))

    /// u-order holds both transactions of the order (as StoreKit 2 rows no night verified yet) and has
    /// premium but not yet pro; u-other holds another purchase.
    static func seed(_ db: PostgresConnection, _ api: ScriptedServerAPI) throws {
        try ServerAPIRunTests.seedTables(db)
        try db.executeScript("INSERT INTO products VALUES ('lifetime', 'non_consumable', 'pro', NULL);")
        try ServerAPIRunTests.receipt(db, "u-order", api.sign(subscription))
        try ServerAPIRunTests.receipt(db, "u-order", api.sign(lifetime))
        try ServerAPIRunTests.premium(db, "u-order", expires: day(28))
        try ServerAPIRunTests.receipt(
            db, "u-other", api.sign(Transaction(id: "5001", purchased: day(-3), expires: day(27))))
        try ServerAPIRunTests.premium(db, "u-other", expires: day(27))
    }

    static func run(
        _ database: TestDatabase, _ api: ScriptedServerAPI, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(
            ["verify-user"] + arguments + ["--as-of", asOf, "--max-attempts", "2"],
            environment: environment
                ?? api.environment.merging(["DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example"]) {
                    $1
                })
    }

    static func runs(_ db: PostgresConnection) throws -> [String] {
        try db.query("SELECT kind || ' ' || coalesce(subject_user_id, '-') AS s FROM recon_runs ORDER BY id").map {
            try $0.decode("s", as: String.self)
        }
    }

    @Test func anOrderOfTwoTransactionsHeldByOneUserVerifiesThatUser() throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db, api)
            api.script(
                .production, .orderLookup, id: "MK5TTTVWJH",
                [.orderLookup(status: 0, [Self.subscription, Self.lifetime])])
            api.script(.production, .transactionHistory, id: "4001", [.history([Self.subscription, Self.lifetime])])

            let result = try Self.run(database, api, ["--order-id", "MK5TTTVWJH"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout.contains("Order MK5TTTVWJH: 2 transaction(s)"), "\(result.stdout)")
            #expect(result.stdout.contains("Held by 1 user(s): u-order"), "\(result.stdout)")
            // The user's report, as verify-user USER_ID prints it: pro granted from Apple's answer.
            let corrections = try ServerAPIRunTests.corrections(db)
            #expect(corrections.contains { $0.hasPrefix("u-order pro grant") }, "\(corrections)")
            let pro = try db.query("SELECT active FROM entitlements WHERE user_id = 'u-order' AND entitlement = 'pro'")
            #expect(try pro.first?.decode("active", as: Bool.self) == true)
            #expect(try Self.runs(db) == ["user u-order"])
            #expect(
                api.received.map(\.path) == [
                    "/production/inApps/v1/lookup/MK5TTTVWJH", "/production/inApps/v2/history/4001",
                ])
            #expect(api.received.allSatisfy { $0.token?.bid == "com.example" && $0.token?.signatureVerifies == true })

            // The same order again, now that the job recorded the transactions: found by recon_transactions,
            // with --json one object carrying the order and the user's verify-user object.
            let again = try Self.run(database, api, ["--order-id", "MK5TTTVWJH", "--json"])
            #expect(again.status == 0, "\(again.output)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], "\(again.stdout)")
            #expect(object["orderId"] as? String == "MK5TTTVWJH")
            #expect(object["users"] as? [String] == ["u-order"])
            let transactions = try #require(object["transactions"] as? [[String: Any]])
            #expect(transactions.compactMap { $0["transactionId"] as? String } == ["4001", "4002"])
            let reports = try #require(object["reports"] as? [[String: Any]])
            #expect(reports.count == 1 && reports[0]["entitlements"] != nil)
            #expect(try Self.runs(db) == ["user u-order", "user u-order"])
        }
    }

    /// A renewal's order: its transaction is new, its original transaction is the one the job recorded.
    @Test func aRenewalOrderIsFoundByItsOriginalTransaction() throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db, api)
            try db.execute(
                """
                INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id)
                VALUES ('5001', '5001', 'monthly', 'u-other')
                """)
            let renewal = Transaction(id: "5002", originalID: "5001", purchased: Self.day(-1), expires: Self.day(29))
            api.script(.production, .orderLookup, id: "MRENEWAL1", [.orderLookup(status: 0, [renewal])])
            let result = try Self.run(database, api, ["--order-id", "MRENEWAL1"])
            #expect(result.stdout.contains("Held by 1 user(s): u-other"), "\(result.output)")
            #expect(try Self.runs(db) == ["user u-other"])
        }
    }

    @Test func anOrderNoStoredRowHoldsIsSaidPlainlyWithApplesTransactions() throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db, api)
            let stranger = Transaction(id: "9001", product: "monthly", purchased: Self.day(-3), expires: Self.day(27))
            api.script(.production, .orderLookup, id: "MNOBODY42", [.orderLookup(status: 0, [stranger])])

            let result = try Self.run(database, api, ["--order-id", "MNOBODY42"])
            #expect(result.status == 65, "\(result.output)")
            let purchased = ISO8601DateFormatter().string(from: Self.day(-3))
            #expect(result.stdout.contains("transaction 9001"), "\(result.stdout)")
            #expect(result.stdout.contains("product monthly"))
            #expect(result.stdout.contains("purchased \(purchased)"), "\(result.stdout)")
            #expect(result.stdout.contains("Production"))
            #expect(
                result.stderr.contains("no stored row holds the 1 transaction(s) of order MNOBODY42"),
                "\(result.stderr)")
            #expect(try Self.runs(db).isEmpty, "nobody was verified")
            #expect(api.received.map(\.endpoint) == [.orderLookup])
        }
    }

    @Test func anInvalidOrderIDIsSaidPlainly() throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db, api)
            let result = try Self.run(database, api, ["--order-id", "MWRONG123"])  // unscripted: status 1
            #expect(result.status == 65, "\(result.output)")
            #expect(result.stdout.contains("invalid for this app"), "\(result.stdout)")
            #expect(
                result.stderr.contains("Apple says order id MWRONG123 is not an order of this app"), "\(result.stderr)")
            #expect(api.received.map(\.environment) == [.production, .sandbox])
            #expect(try Self.runs(db).isEmpty)
        }
    }

    @Test func aForgedSignedTransactionIsNotBelieved() throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db, api)
            var forged = Self.lifetime
            forged.forged = true
            api.script(
                .production, .orderLookup, id: "MFORGED1", [.orderLookup(status: 0, [Self.subscription, forged])])
            let before = try RunCommandTests.entitlementsDump(db)

            let result = try Self.run(database, api, ["--order-id", "MFORGED1"])
            #expect(result.status == 69, "\(result.output)")
            #expect(result.stderr.contains("gave no answer") && result.stderr.contains("rejected"), "\(result.stderr)")
            #expect(try Self.runs(db).isEmpty, "no user verified on an answer that is not Apple's")
            #expect(try RunCommandTests.entitlementsDump(db) == before)
            #expect(api.received.allSatisfy { $0.endpoint == .orderLookup })
        }
    }

    /// The order lookup draws on the hourly budget every shard shares, per endpoint, and never waits.
    @Test func aSpentOrderLookupBudgetAsksNothingAndSays69() throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seed(db, api)
            try db.execute(
                """
                INSERT INTO recon_request_budget (endpoint, window_start, granted)
                SELECT 'order_lookup', date_trunc('hour', now(), 'UTC') + h * interval '1 hour', 10
                FROM generate_series(0, 1) AS h
                """)
            let result = try Self.run(database, api, ["--order-id", "MK5TTTVWJH", "--max-requests-per-hour", "10"])
            #expect(result.status == 69, "\(result.output)")
            #expect(
                result.stderr.contains("--max-requests-per-hour 10 spent for order_lookup")
                    && result.stderr.contains("the order was not looked up"), "\(result.stderr)")
            #expect(api.received.isEmpty, "Apple was asked nothing")
            #expect(try Self.runs(db).isEmpty)
        }
    }

    @Test func usageAndConfigurationErrors() throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let both = try Self.run(database, api, ["u-order", "--order-id", "MK5TTTVWJH"])
            #expect(both.status == 64, "\(both.output)")
            #expect(both.stderr.contains("either USER_ID or --order-id"), "\(both.stderr)")
            let shape = try Self.run(database, api, ["--order-id", "MK5-TTT/VWJH"])
            #expect(shape.status == 64, "\(shape.output)")
            #expect(shape.stderr.contains("letters and digits"), "\(shape.stderr)")
            let explain = try Self.run(database, api, ["--order-id", "MK5TTTVWJH", "--explain"])
            #expect(explain.status == 64, "\(explain.output)")

            // Without the Server API key there is nothing to ask Apple with.
            let noKey = try Self.run(
                database, api, ["--order-id", "MK5TTTVWJH"],
                environment: ["DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example"])
            #expect(noKey.status == 78, "\(noKey.output)")
            #expect(noKey.stderr.contains("APPLE_API_KEY_FILE"), "\(noKey.stderr)")
            #expect(api.received.isEmpty)
        }
    }
}
