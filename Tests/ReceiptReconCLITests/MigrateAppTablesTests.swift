import Foundation
import Postgres
import TestSupport
import Testing

/// `migrate` into a schema that already holds an app's own tables (issue 34): it does not create empty
/// contract tables beside them unless `--create-app-tables` says so, and `migrate --check` points at
/// the mapping, not at `migrate`.
@Suite struct MigrateAppTablesTests {
    static let guide = "docs/integration.md#mapping-an-existing-schema-a-walk"

    static func run(_ arguments: [String], _ database: TestDatabase) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(arguments, environment: ["DATABASE_URL": database.conninfo])
    }

    /// An app's schema of another shape: none of the contract's names.
    static func appSchema(_ database: TestDatabase) throws {
        try database.connect().executeScript(
            """
            CREATE TABLE plans (sku text PRIMARY KEY, plan text NOT NULL);
            CREATE TABLE iap_receipts (receipt_id bigserial PRIMARY KEY, account_id bigint NOT NULL, payload text);
            CREATE TABLE account_features (account_id bigint, feature text, enabled boolean,
                PRIMARY KEY (account_id, feature));
            INSERT INTO iap_receipts (account_id, payload) VALUES (1001, 'MIIaa');
            """)
    }

    @Test func migrateRefusesToCreateAppTablesBesideAnAppsOwn() throws {
        try TestDatabase.with(migrated: false) { database in
            try Self.appSchema(database)
            let connection = try database.connect()
            let before = try SchemaCheckTests.relations(connection)

            let migrate = try Self.run(["migrate"], database)
            #expect(migrate.status == 78, "\(migrate.output)")
            #expect(migrate.stderr.contains("migrate changed nothing"), "\(migrate.stderr)")
            #expect(
                migrate.stderr.contains(
                    "the application tables products, receipts, entitlements, sandbox_testers are not on the search path"
                ),
                "\(migrate.stderr)")
            #expect(migrate.stderr.contains("public.iap_receipts"), "names what the schema holds: \(migrate.stderr)")
            #expect(migrate.stderr.contains(Self.guide))
            #expect(migrate.stderr.contains("--create-app-tables"))
            #expect(try SchemaCheckTests.relations(connection) == before, "migrate created something")

            let check = try Self.run(["migrate", "--check"], database)
            #expect(check.status == 78, "\(check.output)")
            #expect(check.stderr.contains(Self.guide), "\(check.stderr)")
            #expect(!check.stderr.contains("run 'receipt-recon migrate'"), "\(check.stderr)")

            let create = try Self.run(["migrate", "--create-app-tables"], database)
            #expect(create.status == 0, "\(create.output)")
            #expect(create.stdout.contains("creating the application tables"), "\(create.stdout)")
            let ready = try Self.run(["migrate", "--check"], database)
            #expect(ready.status == 0, "\(ready.output)")
            #expect(
                try connection.query("SELECT count(*) AS n FROM iap_receipts").first!.decode("n") == 1,
                "the app's own rows stay")
        }
    }

    /// A schema holding only the contract's own names (views of the app's tables, as docs/integration.md
    /// maps them in a schema of the job's) and nothing else: the missing table is created, as before.
    @Test func aSchemaOfTheContractsNamesOnlyGetsTheMissingOnesCreated() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.executeScript(
                """
                CREATE SCHEMA app;
                CREATE TABLE app.plans (sku text PRIMARY KEY, plan text NOT NULL);
                CREATE VIEW products AS
                    SELECT sku AS product_id, 'auto_renewable'::text AS kind, 'premium'::text AS entitlement,
                           NULL::interval AS duration
                    FROM app.plans;
                """)
            let migrate = try Self.run(["migrate"], database)
            #expect(migrate.status == 0, "\(migrate.output)")
            #expect(!migrate.stdout.contains("--create-app-tables"))
            let check = try Self.run(["migrate", "--check"], database)
            #expect(check.status == 0, "\(check.output)")
            #expect(check.stdout.contains("products: public.products (view)"))
        }
    }

    @Test func checkAndCreateAreNotGivenTogether() throws {
        let result = try ReceiptReconBinary.run(["migrate", "--check", "--create-app-tables"])
        #expect(result.status == 64, "\(result.output)")
    }
}
