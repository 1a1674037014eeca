import Foundation
import Postgres
import TestSupport
import Testing

/// `receipt-recon mapping FILE` through the built binary: the SQL it prints, applied to a real database,
/// makes one `migrate --check --mapping` accepts; what the file does not say is refused, naming it; and
/// `simulator seed` keeps out of a mapped database, seeding a staging schema instead.
/// (IntegrationWalkTests runs the whole walk: uuid keys, the dry run and the night into the app's table.)
@Suite struct MappingCommandTests {
    /// An app with text user ids, integer receipt keys and its own names; `bundle` is a plan the file
    /// below does not kind.
    static let app = """
        CREATE TABLE plans (sku text PRIMARY KEY, tier text NOT NULL, unlocks text);
        INSERT INTO plans VALUES ('com.example.monthly', 'sub', 'premium'), ('com.example.bundle', 'bundle', 'premium');
        CREATE TABLE "Purchases" (n integer PRIMARY KEY, "Owner" text NOT NULL, blob text NOT NULL);
        INSERT INTO "Purchases" VALUES (1, 'alice', 'QUxJQ0U=');
        CREATE TABLE grants (owner text, feature text, on_ boolean NOT NULL, PRIMARY KEY (owner, feature));
        """

    static func file(owner: String, role: String, kinds: String = "[kinds]\nsub = auto_renewable\n") -> String {
        """
        [job]
        schema = recon
        owner = \(owner)
        role = \(role)
        [products]
        table = public.plans
        product_id = sku
        entitlement = unlocks
        kind = tier
        \(kinds)
        [receipts]
        table = public."Purchases"
        id = n
        id_type = integer
        user_id = "Owner"
        receipt_data = blob
        [entitlements]
        table = public.grants
        user_id = owner
        entitlement = feature
        active = on_
        """
    }

    static func write(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-\(UUID().uuidString).ini")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func aFileThatStatesNoKindIsRefusedBeforeAnySQL() throws {
        let url = try Self.write(Self.file(owner: "o", role: "r", kinds: ""))
        defer { try? FileManager.default.removeItem(at: url) }
        let printed = try ReceiptReconBinary.run(["mapping", url.path])
        #expect(printed.status == 78, "\(printed.output)")
        #expect(printed.stdout.isEmpty)
        #expect(printed.stderr.contains("no [kinds] section"), "\(printed.stderr)")
        #expect(printed.stderr.contains(url.path), "\(printed.stderr)")
    }

    @Test func theMappedDatabaseIsCheckedAndAnUnkindedProductNamed() throws {
        try TestDatabase.with(migrated: false) { database in
            try TestRole.with(in: database) { job in
                let admin = try database.connect()
                try admin.executeScript(Self.app)
                let owner: String = try admin.query("SELECT current_user::text AS u").first!.decode("u")
                let url = try Self.write(Self.file(owner: owner, role: job.name))
                defer { try? FileManager.default.removeItem(at: url) }
                let superuser = ["DATABASE_URL": database.conninfo]

                for part in ["admin", "schema"] {
                    let sql = try ReceiptReconBinary.run(["mapping", url.path, "--part", part])
                    try #require(sql.status == 0, "\(sql.output)")
                    try database.connect().executeScript(sql.stdout)
                }
                let migrate = try ReceiptReconBinary.run(["migrate"], environment: superuser)
                try #require(migrate.status == 0, "\(migrate.output)")
                let grants = try ReceiptReconBinary.run(["mapping", url.path, "--part", "grants"])
                try database.connect().executeScript(grants.stdout)

                // The nightly role finds everything the file maps; the plan the file does not kind is named.
                let check = try ReceiptReconBinary.run(
                    ["migrate", "--check", "--mapping", url.path], environment: ["DATABASE_URL": job.conninfo])
                #expect(check.status == 78, "\(check.output)")
                #expect(check.stdout.contains("com.example.bundle (kind NULL)"), "\(check.stdout)")
                #expect(!check.stdout.contains("com.example.monthly"), "\(check.stdout)")
                #expect(!check.stdout.contains("problem: mapping"), "\(check.stdout)")

                // Kinded, it is ready; a sync trigger gone is a problem naming the part to run again.
                try admin.execute("UPDATE plans SET tier = 'sub'")
                let ready = try ReceiptReconBinary.run(
                    ["migrate", "--check", "--mapping", url.path], environment: ["DATABASE_URL": job.conninfo])
                #expect(ready.status == 0, "\(ready.output)")
                // The app's quoted names came through: the receipt and its text user id.
                let receipt = try database.connect().query("SELECT id, user_id FROM recon.receipts").first
                #expect(try receipt?.decode("user_id", as: String.self) == "alice")
                try admin.execute("DROP TRIGGER grants_to_recon ON grants")
                let broken = try ReceiptReconBinary.run(
                    ["migrate", "--check", "--mapping", url.path], environment: ["DATABASE_URL": job.conninfo])
                #expect(broken.status == 78, "\(broken.output)")
                #expect(
                    broken.stdout.contains(
                        "problem: mapping: trigger grants_to_recon on \"public\".\"grants\" is missing"),
                    "\(broken.stdout)")
                #expect(broken.stdout.contains("--part schema"), "\(broken.stdout)")
            }
        }
    }

    /// `simulator seed` on a database whose `products` is a view over the app's own table: refused, 78,
    /// naming the view and `--schema`, nothing written; `--schema sim` seeds the contract's four tables
    /// there and nothing else, leaving the app's tables as they were.
    @Test func seedKeepsOutOfAMappedDatabaseAndSeedsAStagingSchema() throws {
        try TestDatabase.with { database in
            let db = try database.connect()
            try MappingCheckTests.mistakenProductsView(db)
            let environment = ["DATABASE_URL": database.conninfo]
            let world = ["--users", "20", "--seed", "1", "--as-of", "2026-11-22T03:00:00Z"]
            let seed = try ReceiptReconBinary.run(["simulator", "seed"] + world, environment: environment)
            #expect(seed.status == 78, "\(seed.output)")
            #expect(seed.stderr.contains("products here is the view public.products"), "\(seed.stderr)")
            #expect(seed.stderr.contains("--schema NAME"), "\(seed.stderr)")
            func count(_ table: String) throws -> Int {
                try db.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int AS n FROM \(table)")).first!.decode("n")
            }
            #expect(try count("receipts") == 0 && count("entitlements") == 0 && count("app_plans") == 4)

            let staged = try ReceiptReconBinary.run(
                ["simulator", "seed", "--schema", "sim"] + world, environment: environment)
            #expect(staged.status == 0, "\(staged.output)")
            #expect(try count("sim.receipts") > 0 && count("sim.products") > 0 && count("sim.entitlements") > 0)
            let tables: [String] = try db.query(
                "SELECT relname::text AS t FROM pg_class WHERE relnamespace = 'sim'::regnamespace AND relkind = 'r' ORDER BY 1"
            ).map { try $0.decode("t") }
            #expect(tables == ["entitlements", "products", "receipts", "sandbox_testers"])
            #expect(try count("receipts") == 0 && count("entitlements") == 0 && count("app_plans") == 4)
        }
    }
}
