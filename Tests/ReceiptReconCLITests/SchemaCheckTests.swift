import Foundation
import Postgres
import ReconSchema
import TestSupport
import Testing

/// `migrate --check`, `migrate` and every command that uses the database, against databases that are
/// ready, not migrated, or whose application tables have another shape (docs/integration.md).
@Suite struct SchemaCheckTests {
    static func run(_ arguments: [String], _ database: TestDatabase, _ extra: [String: String] = [:]) throws
        -> ReceiptReconBinary.Result
    {
        try ReceiptReconBinary.run(arguments, environment: extra.merging(["DATABASE_URL": database.conninfo]) { $1 })
    }

    @Test func checkOnAMigratedDatabaseSaysReadyAndExits0() throws {
        try TestDatabase.with { database in
            let result = try Self.run(["migrate", "--check"], database)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout.contains("migrations: \(Migration.all.count) of \(Migration.all.count) applied"))
            #expect(result.stdout.contains("entitlements: public.entitlements (table)"))
            #expect(result.stdout.contains("ready:"))
            #expect(!result.stdout.contains("problem:"))
        }
    }

    @Test func checkOnAnEmptyDatabaseListsThePendingMigrationsChangesNothingAndExits78() throws {
        try TestDatabase.with(migrated: false) { database in
            let result = try Self.run(["migrate", "--check"], database)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stdout.contains("pending: 0001_create_application_tables"))
            #expect(result.stderr.contains("run 'receipt-recon migrate'"))
            let tables: Int = try database.connect().query(
                "SELECT count(*) AS n FROM pg_class WHERE relnamespace = 'public'::regnamespace"
            ).first!.decode("n")
            #expect(tables == 0, "--check created something")
        }
    }

    /// The app's own tables, of another shape: every problem named, one per line, and `migrate` refuses
    /// in the same words without creating a thing.
    @Test func aWronglyShapedAppSchemaIsNamedColumnByColumnAndMigrateChangesNothing() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.executeScript(
                """
                CREATE TABLE products (id bigserial PRIMARY KEY, sku text, kind text, entitlement text, duration int);
                CREATE TABLE receipts (id bigserial PRIMARY KEY, user_id bigint NOT NULL, receipt_data text NOT NULL);
                CREATE TABLE entitlements (user_id text NOT NULL, entitlement text NOT NULL, active boolean NOT NULL,
                    expires_at timestamp NOT NULL, product_id text, original_transaction_id text,
                    source text NOT NULL DEFAULT 'app_store', updated_at timestamptz NOT NULL DEFAULT now());
                """)
            let expected = [
                "products.product_id: missing; the job reads it as text (or varchar)",
                "products.duration: integer; the job needs interval",
                "receipts.user_id: bigint; the job needs text (or varchar) (a view can cast it: user_id::text)",
                "entitlements: no unique key on (user_id, entitlement)",
                "entitlements.expires_at: timestamp without time zone; the job needs timestamp with time zone",
                "entitlements.expires_at: NOT NULL, but the job writes NULL into it",
            ]
            let check = try Self.run(["migrate", "--check"], database)
            #expect(check.status == 78, "\(check.output)")
            for problem in expected {
                #expect(check.stdout.contains("problem: \(problem)"), "\(problem)\n\(check.stdout)")
            }
            #expect(check.stdout.contains("problem: sandbox_testers: not found on the search path"))
            #expect(check.stderr.contains("docs/integration.md"))

            let before = try Self.relations(connection)
            let migrate = try Self.run(["migrate"], database)
            #expect(migrate.status == 78, "\(migrate.output)")
            for problem in expected {
                #expect(migrate.stderr.contains("receipt-recon migrate: \(problem)"), "\(problem)\n\(migrate.stderr)")
            }
            #expect(migrate.stderr.contains("migrate changed nothing"))
            #expect(!migrate.stderr.contains("sandbox_testers"), "an absent table is created, not a problem")
            #expect(try Self.relations(connection) == before)
        }
    }

    /// A view with INSTEAD OF triggers takes INSERT but never INSERT … ON CONFLICT: refused up front.
    @Test func anEntitlementsViewWithInsteadOfTriggersIsRefused() throws {
        try TestDatabase.with(migrated: false) { database in
            try database.connect().executeScript(
                """
                CREATE TABLE app_access (account_id bigint, feature text, enabled boolean NOT NULL, until timestamptz,
                    sku text, txn text, granted_by text NOT NULL, changed_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (account_id, feature));
                CREATE VIEW entitlements AS
                    SELECT account_id::text AS user_id, feature AS entitlement, enabled AS active, until AS expires_at,
                           sku AS product_id, txn AS original_transaction_id, granted_by AS source, changed_at AS updated_at
                    FROM app_access;
                CREATE FUNCTION app_access_write() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO app_access VALUES (NEW.user_id::bigint, NEW.entitlement, NEW.active, NEW.expires_at,
                        NEW.product_id, NEW.original_transaction_id, NEW.source, now());
                    RETURN NEW;
                END $$;
                CREATE TRIGGER app_access_write INSTEAD OF INSERT ON entitlements
                    FOR EACH ROW EXECUTE FUNCTION app_access_write();
                """)
            let result = try Self.run(["migrate"], database)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains("entitlements: a view with INSTEAD OF triggers"), "\(result.stderr)")
            #expect(
                try database.connect().query("SELECT to_regclass('recon_runs') IS NULL AS absent").first!.decode(
                    "absent") == true)
        }
    }

    /// The arrange block of the renaming-view tests: a scripted verifyReceipt and a fresh, unmigrated
    /// database whose `entitlements` is a view renaming the columns of the app's `user_access` (with a
    /// primary key on the two columns when `keyed`), and a connection to it.
    static func renamingView<T>(
        keyed: Bool, _ body: (ScriptedAppleServer, TestDatabase, PostgresConnection) throws -> T
    ) throws -> T {
        let apple = try ScriptedAppleServer()
        return try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.executeScript(
                """
                CREATE TABLE user_access (uid text NOT NULL, feature text NOT NULL, is_on boolean NOT NULL,
                    ends_at timestamptz, sku text, original_txn text, source text NOT NULL DEFAULT 'app_store',
                    changed_at timestamptz NOT NULL DEFAULT now()\(keyed ? ", PRIMARY KEY (uid, feature)" : ""));
                CREATE VIEW entitlements AS
                    SELECT uid AS user_id, feature AS entitlement, is_on AS active, ends_at AS expires_at,
                           sku AS product_id, original_txn AS original_transaction_id, source, changed_at AS updated_at
                    FROM user_access;
                """)
            return try body(apple, database, connection)
        }
    }

    /// A view that only renames the app's columns is automatically updatable: migrate accepts it and a
    /// real run's corrections land in the app's own table. (The app's table beside the view makes
    /// `migrate` ask before it creates the other application tables: this app has none of its own.)
    @Test func aRenamingEntitlementsViewTakesTheJobsWrites() throws {
        try Self.renamingView(keyed: true) { apple, database, connection in
            let migrate = try Self.run(["migrate", "--create-app-tables"], database)
            #expect(migrate.status == 0, "\(migrate.output)")
            let check = try Self.run(["migrate", "--check"], database)
            #expect(check.status == 0, "\(check.output)")
            #expect(check.stdout.contains("entitlements: public.entitlements (view)"))

            try RunCommandTests.seed(database, apple)
            let result = try RunCommandTests.run(database, apple)
            #expect(result.status == 0, "\(result.output)")
            #expect(try RunCommandTests.corrections(connection, applied: true) == RunCommandTests.expected)
            let rows = try connection.query(
                "SELECT uid || '/' || feature || '=' || is_on::text AS r FROM user_access ORDER BY 1"
            ).map { try $0.decode("r", as: String.self) }
            #expect(rows.contains("u-grant/pro=true"))
            #expect(rows.contains("u-revoke/premium=false"))
            #expect(rows.contains("u-promo/premium=true"), "another source's row is never touched")
        }
    }

    /// What only the planner knows: a renaming view over a table without a unique key on the two
    /// columns. `migrate --check` asks it (EXPLAIN of the job's upsert); a run, whose start reads only the
    /// catalogue, meets it at its first grant and stops with 78 and the same way out, recorded.
    @Test func aViewOverATableWithoutTheKeyIsNamedByCheckAndStopsARunWith78() throws {
        try Self.renamingView(keyed: false) { apple, database, connection in
            let check = try Self.run(["migrate", "--check"], database)
            #expect(check.status == 78, "\(check.output)")
            #expect(
                check.stdout.contains(
                    "problem: entitlements: the job's INSERT … ON CONFLICT (user_id, entitlement) fails"),
                "\(check.stdout)")
            _ = try Migrator().apply(on: connection)
            try RunCommandTests.seed(database, apple)
            let result = try RunCommandTests.run(database, apple)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains("receipt-recon migrate --check"), "\(result.stderr)")
            let row = try connection.query("SELECT status, exit_code, abort_reason FROM recon_runs").first!
            #expect(try row.decode("status") == "failed")
            #expect(try row.decode("exit_code", as: Int?.self) == 78)
            #expect(try row.decode("abort_reason", as: String?.self)?.contains("docs/integration.md") == true)
        }
    }

    /// Every command that uses the database, on one never migrated: 78 and the way out, nothing else.
    @Test(arguments: [
        ["run"], ["run", "--dry-run", "--json"], ["verify-user", "u-1"], ["report"], ["report", "--run", "1"],
        ["export", "corrections", "--from", "2026-01-01", "--to", "2026-02-01"],
    ])
    func everyCommandOnAnUnmigratedDatabaseSaysRunMigrate(arguments: [String]) throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with(migrated: false) { database in
            let result = try Self.run(arguments, database, apple.environment)
            #expect(result.status == 78, "\(arguments): \(result.output)")
            #expect(result.stderr.contains("run 'receipt-recon migrate'"), "\(result.stderr)")
            #expect(
                try database.connect().query("SELECT to_regclass('recon_runs') IS NULL AS absent").first!.decode(
                    "absent") == true)
        }
    }

    /// One migration short (a newer build than the database): the same 78, naming what is pending.
    @Test(arguments: [["report"], ["export", "flags", "--from", "2026-01-01", "--to", "2026-02-01"]])
    func aDatabaseOneMigrationBehindSaysWhichIsPending(arguments: [String]) throws {
        try TestDatabase.with(migrated: false) { database in
            let all = Migration.all
            _ = try Migrator(migrations: Array(all.dropLast())).apply(on: database.connect())
            let result = try Self.run(arguments, database)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains("\(all.last!.version)_\(all.last!.name)"))
            #expect(result.stderr.contains("run 'receipt-recon migrate'"))
        }
    }

    /// An app table that changed shape after migrating: the run stops before its row exists, naming the
    /// column, instead of failing on raw SQL with 70.
    @Test func aRunOnAnAppTableOfAnotherShapeIs78NamingTheColumn() throws {
        try RunCommandTests.drifted { apple, database in
            let connection = try database.connect()
            try connection.execute("ALTER TABLE products RENAME COLUMN product_id TO sku")
            for arguments in [["run", "--dry-run"], ["verify-user", "u-grant"]] {
                let result = try Self.run(arguments, database, apple.environment)
                #expect(result.status == 78, "\(arguments): \(result.output)")
                #expect(result.stderr.contains("products.product_id: missing"), "\(result.stderr)")
                #expect(result.stderr.contains("receipt-recon migrate --check"))
            }
            #expect(try connection.query("SELECT count(*) AS n FROM recon_runs").first!.decode("n") == 0)
        }
    }

    /// The job's tables in a schema the role's search path does not reach: 78 naming the schema and how
    /// to reach it, not "run migrate" (which would create a second set of tables).
    @Test func jobTablesOffTheSearchPathAreNamed() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.executeScript("CREATE SCHEMA jobs; SET search_path = jobs;")
            _ = try Migrator().apply(on: connection)
            let result = try Self.run(["report"], database)
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains("the job's tables are in schema jobs"), "\(result.stderr)")
            #expect(result.stderr.contains("search_path = jobs"))
            let reached = try ReceiptReconBinary.run(
                ["migrate", "--check"],
                environment: ["DATABASE_URL": database.conninfo + " options=-csearch_path=jobs"])
            #expect(reached.status == 0, "\(reached.output)")
        }
    }

    /// What the relations of the database are, to tell that nothing changed.
    static func relations(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT c.relname || ':' || c.relkind::text || ':' || count(a.attnum) AS r
            FROM pg_class c LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
            WHERE c.relnamespace = 'public'::regnamespace GROUP BY c.relname, c.relkind ORDER BY 1
            """
        ).map { try $0.decode("r") }
    }
}
