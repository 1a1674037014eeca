import Foundation
import Postgres
import TestSupport
import Testing

/// A `products` view that passes the app's plan names through as `kind` (issue 34): a view has no CHECK
/// constraint, so `migrate --check`, `run` (both backends) and `verify-user` read the values and refuse
/// to start (78, naming the product ids and the four kinds) before any request to Apple or any write.
@Suite struct MappingCheckTests {
    typealias World = VerdictWorld
    static func day(_ offset: Double) -> Date { World.day(offset) }

    /// The products the mistaken view refuses: with the unmapped plan, its product too.
    static func refused(unmappedPlan: Bool) -> [String] {
        ["com.example.monthly", "com.example.yearly"] + (unmappedPlan ? ["com.example.family"] : [])
    }
    static let kinds = ["consumable", "non_consumable", "auto_renewable", "non_renewing"]

    /// The app's own plans and a `products` view over them as docs/integration.md maps one, with the
    /// mistake: the subscriptions' plan names pass through as kinds; with `unmappedPlan`, the newest
    /// plan (`family`) is also one the view's CASE does not map (NULL).
    static func mistakenProductsView(_ db: PostgresConnection, unmappedPlan: Bool = true) throws {
        let family = unmappedPlan ? "" : "WHEN 'family' THEN 'auto_renewable'"
        try db.executeScript(
            """
            DROP TABLE products;
            CREATE TABLE app_plans (sku text PRIMARY KEY, plan text NOT NULL, unlocks text);
            INSERT INTO app_plans VALUES ('com.example.monthly', 'monthly', 'premium'),
                ('com.example.yearly', 'yearly', 'premium'), ('com.example.lifetime', 'lifetime', 'pro'),
                ('com.example.family', 'family', 'premium');
            CREATE VIEW products AS
            SELECT sku AS product_id,
                   CASE plan WHEN 'lifetime' THEN 'non_consumable' WHEN 'monthly' THEN plan WHEN 'yearly' THEN plan
                       \(family) END AS kind,
                   unlocks AS entitlement, NULL::interval AS duration
            FROM app_plans;
            """)
    }

    /// Whether `text` names every refused product and the four kinds, and no accepted product.
    static func namesTheRefusal(_ text: String, unmappedPlan: Bool = true) -> Bool {
        refused(unmappedPlan: unmappedPlan).allSatisfy(text.contains) && kinds.allSatisfy(text.contains)
            && !text.contains("com.example.lifetime") && (unmappedPlan || !text.contains("com.example.family"))
    }

    /// What a run must leave as it found: no run row, no correction, the same entitlements.
    static func nothingWritten(_ db: PostgresConnection, entitlements before: [String]) throws -> Bool {
        let runs: Int = try db.query("SELECT count(*) AS n FROM recon_runs").first!.decode("n")
        let corrections: Int = try db.query("SELECT count(*) AS n FROM recon_corrections").first!.decode("n")
        let after = try RunCommandTests.entitlementsDump(db)
        return runs == 0 && corrections == 0 && after == before
    }

    @Test func checkRefusesKindsTheViewDoesNotMap() throws {
        try TestDatabase.with { database in
            try Self.mistakenProductsView(database.connect())
            let check = try ReceiptReconBinary.run(
                ["migrate", "--check"], environment: ["DATABASE_URL": database.conninfo])
            #expect(check.status == 78, "\(check.output)")
            #expect(!check.stdout.contains("ready:"), "\(check.stdout)")
            let line = try #require(
                check.stdout.split(separator: "\n").first { $0.hasPrefix("problem: products.kind:") })
            #expect(Self.namesTheRefusal(String(line)), "\(line)")
            #expect(line.contains("com.example.family (kind NULL)"), "\(line)")
            #expect(line.contains("com.example.monthly (kind 'monthly')"), "\(line)")
            #expect(Self.namesTheRefusal(check.stderr), "\(check.stderr)")
            #expect(check.stderr.contains("docs/integration.md#mapping-an-existing-schema-a-walk"))
        }
    }

    /// verifyReceipt backend: `run` and `verify-user` stop before asking Apple anything. Without the
    /// check, the plan names alone made a night revoke every subscriber (`no_purchase`).
    @Test(arguments: [true, false])
    func verifyReceiptRunAndVerifyUserStopBeforeApple(unmappedPlan: Bool) throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.mistakenProductsView(db, unmappedPlan: unmappedPlan)
            typealias P = ScriptedAppleServer.Purchase
            let products = ["com.example.monthly", "com.example.yearly", "com.example.family"]
            for (index, user) in ["u-1", "u-2", "u-3"].enumerated() {
                let data = Data("receipt-\(user)".utf8).base64EncodedString()
                try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(data))")
                try db.execute(
                    """
                    INSERT INTO entitlements (user_id, entitlement, active, expires_at)
                    VALUES (\(user), 'premium', true, \(Self.day(20)))
                    """)
                apple.answer(
                    data,
                    with: .valid([
                        P(
                            product: products[index], transactionID: "t\(index)", originalTransactionID: "t\(index)",
                            purchased: Self.day(-10), expires: Self.day(20))
                    ]))
            }
            let before = try RunCommandTests.entitlementsDump(db)

            let run = try RunCommandTests.run(database, apple, ["--json"])
            #expect(run.status == 78, "\(run.output)")
            #expect(Self.namesTheRefusal(run.stderr, unmappedPlan: unmappedPlan), "\(run.stderr)")
            let summary = try World.summary(run)
            #expect(summary["status"] as? String == "failed")
            #expect(summary["exitCode"] as? Int == 78)

            let user = try ReceiptReconBinary.run(
                ["verify-user", "u-1", "--as-of", RunCommandTests.asOf, "--max-attempts", "1"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect(user.status == 78, "\(user.output)")
            #expect(Self.namesTheRefusal(user.stderr, unmappedPlan: unmappedPlan), "\(user.stderr)")

            #expect(apple.received.isEmpty, "Apple was asked \(apple.received.count) times")
            #expect(try Self.nothingWritten(db, entitlements: before))
        }
    }

    /// App Store Server API backend: not even the notification history is read.
    @Test(arguments: [true, false])
    func serverAPIRunAndVerifyUserStopBeforeApple(unmappedPlan: Bool) throws {
        let api = try World.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.mistakenProductsView(db, unmappedPlan: unmappedPlan)
            for (index, product) in ["com.example.monthly", "com.example.yearly", "com.example.family"].enumerated() {
                let user = "u-\(index)"
                try World.row(
                    db, user,
                    api.sign(
                        World.monthly(
                            "10\(index)", product: product, purchased: Self.day(-10), expires: Self.day(20))))
                try World.entitlement(db, user, "premium", expires: Self.day(20))
            }
            let before = try RunCommandTests.entitlementsDump(db)

            let run = try World.run(database, api)
            #expect(run.status == 78, "\(run.output)")
            #expect(Self.namesTheRefusal(run.stderr, unmappedPlan: unmappedPlan), "\(run.stderr)")

            let user = try World.verifyUser("u-0", database, api, maxAttempts: 1)
            #expect(user.status == 78, "\(user.output)")
            #expect(Self.namesTheRefusal(user.stderr, unmappedPlan: unmappedPlan), "\(user.stderr)")

            #expect(api.received.isEmpty, "Apple was asked \(api.received.count) times")
            #expect(try Self.nothingWritten(db, entitlements: before))
        }
    }
}
