import Foundation
import Postgres
import ReconSchema
import TestSupport
import Testing

/// `receipt-recon migrate` against real, throwaway databases, through the built binary.
@Suite struct MigrateCommandTests {
    /// Every table and column CONTRACT §4 names; acceptance checks query exactly these.
    static let contractColumns: [String: [String]] = [
        "products": ["product_id", "kind", "entitlement", "duration"],
        "receipts": ["id", "user_id", "receipt_data", "created_at"],
        "entitlements": [
            "user_id", "entitlement", "active", "expires_at", "product_id", "original_transaction_id",
            "source", "updated_at",
        ],
        "sandbox_testers": ["user_id", "note"],
        "recon_schema_migrations": ["version", "applied_at"],
        "recon_runs": [
            "id", "kind", "status", "dry_run", "as_of", "started_at", "finished_at", "options",
            "receipts_selected", "apple_requests", "abort_reason",
        ],
        "recon_receipt_state": [
            "receipt_id", "last_verified_at", "last_outcome", "last_apple_status", "last_environment",
            "last_run_id",
        ],
        "recon_results": [
            "run_id", "receipt_id", "user_id", "outcome", "apple_status", "environment", "attempts",
            "verified_at", "detail",
        ],
        "recon_transactions": [
            "transaction_id", "original_transaction_id", "product_id", "user_id", "receipt_id",
            "environment", "purchased_at", "original_purchased_at", "expires_at", "cancelled_at",
            "cancellation_reason", "is_trial", "is_intro_offer", "is_upgraded", "ownership_type",
            "quantity", "web_order_line_item_id", "first_run_id", "last_run_id", "updated_at", "price",
            "currency", "storefront", "offer_type", "offer_discount_type", "transaction_reason",
            "revocation_type", "source", "revocation_percentage",
        ],
        "recon_flags": ["id", "run_id", "receipt_id", "user_id", "kind", "detail", "created_at"],
        "recon_corrections": [
            "id", "run_id", "user_id", "entitlement", "action", "reason", "before_active",
            "before_expires_at", "after_active", "after_expires_at", "product_id",
            "original_transaction_id", "applied", "created_at",
        ],
    ]

    @Test func migrateCreatesEveryContractTableThenIsANoOp() throws {
        try TestDatabase.with(migrated: false) { database in
            let first = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": database.conninfo])
            #expect(first.status == 0, "\(first.output)")
            #expect(first.stdout.contains("Applied \(Migration.all.count) migrations"))

            let connection = try database.connect()
            for (table, columns) in Self.contractColumns {
                let present = try Set(
                    connection.query(
                        """
                        SELECT column_name FROM information_schema.columns
                        WHERE table_schema = current_schema() AND table_name = \(table)
                        """
                    ).map { try $0.decode("column_name", as: String.self) })
                #expect(
                    Set(columns).isSubset(of: present), "\(table) lacks \(Set(columns).subtracting(present).sorted())")
            }
            let recorded: [String] = try connection.query(
                "SELECT version FROM recon_schema_migrations ORDER BY version"
            )
            .map { try $0.decode("version") }
            #expect(recorded == Migration.all.map(\.version))

            let second = try ReceiptReconBinary.run(["migrate", "--database-url", database.conninfo])
            #expect(second.status == 0, "\(second.output)")
            #expect(second.stdout.contains("up to date"))
            #expect(
                try connection.query("SELECT count(*) AS n FROM recon_schema_migrations").first!.decode("n")
                    == Migration.all.count)
        }
    }

    @Test func migrateKeepsAnApplicationsExistingTablesAndRows() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            // The app's own schema, created before receipt-recon ever ran, with rows.
            try connection.executeScript(
                """
                CREATE TABLE receipts (id bigserial PRIMARY KEY, user_id text NOT NULL, receipt_data text NOT NULL,
                                       created_at timestamptz NOT NULL DEFAULT now(), device text);
                CREATE TABLE entitlements (user_id text NOT NULL, entitlement text NOT NULL, active boolean NOT NULL,
                                           expires_at timestamptz, product_id text, original_transaction_id text,
                                           source text NOT NULL DEFAULT 'app_store',
                                           updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (user_id, entitlement));
                INSERT INTO receipts (user_id, receipt_data, device) VALUES ('alice', 'MIIaa', 'iPhone'), ('bob', 'MIIbb', 'iPad');
                INSERT INTO entitlements (user_id, entitlement, active) VALUES ('alice', 'premium', true);
                """)
            let result = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": database.conninfo])
            #expect(result.status == 0, "\(result.output)")
            let receipts: [String] = try connection.query(
                "SELECT user_id || ':' || receipt_data || ':' || device AS r FROM receipts ORDER BY id"
            )
            .map { try $0.decode("r") }
            #expect(receipts == ["alice:MIIaa:iPhone", "bob:MIIbb:iPad"])
            #expect(try connection.query("SELECT count(*) AS n FROM entitlements WHERE active").first!.decode("n") == 1)
            // The job's tables now exist beside them and reference the existing receipts.
            try connection.execute(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'completed', false, now())
                """)
        }
    }

    /// 0004 on a database migrated and used by a build before it: the finance columns arrive empty,
    /// `source` is filled from the row's receipt (JWS or not), and earlier refunds are attributed to
    /// the run that last saw them so that no later run counts them again.
    @Test func financeColumnsMigrateADatabaseWithTransactionsAlready() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            let before = Migration.all.filter { $0.version < "0004" }
            try Migrator(migrations: before).apply(on: connection)
            try connection.executeScript(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'completed', false, now());
                INSERT INTO receipts (id, user_id, receipt_data) VALUES (1, 'u', 'MIIbase64receipt'),
                    (2, 'u', E'  eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2ln\n');
                INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id, receipt_id,
                    cancelled_at, first_run_id, last_run_id) VALUES
                  ('T1', 'O1', 'p', 'u', 1, NULL, 1, 1), ('T2', 'O2', 'p', 'u', 2, now(), 1, 1),
                  ('T3', 'O3', 'p', 'u', 99, NULL, 1, 1);
                """)
            let result = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": database.conninfo])
            #expect(result.status == 0, "\(result.output)")
            let rows = try connection.query(
                """
                SELECT transaction_id, coalesce(source, '-') AS source, price IS NULL AND currency IS NULL
                       AND storefront IS NULL AND offer_type IS NULL AND offer_discount_type IS NULL
                       AND transaction_reason IS NULL AND revocation_type IS NULL AS empty,
                       coalesce(refund_run_id, 0) AS refund_run_id
                FROM recon_transactions ORDER BY transaction_id
                """
            ).map {
                "\(try $0.decode("transaction_id", as: String.self)) \(try $0.decode("source", as: String.self)) "
                    + "\(try $0.decode("empty", as: Bool.self)) \(try $0.decode("refund_run_id", as: Int64.self))"
            }
            #expect(rows == ["T1 verify_receipt true 0", "T2 signed_row true 1", "T3 - true 0"])
            let again = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": database.conninfo])
            #expect(again.status == 0 && again.stdout.contains("up to date"), "\(again.output)")
            #expect(throws: PostgresError.self) {
                try connection.execute("UPDATE recon_transactions SET source = 'receipt' WHERE transaction_id = 'T1'")
            }
        }
    }

    /// 0005 on a database with transactions: refunds recorded before it count 100 %; rows not
    /// revoked, upgrades and family revocations (by type or by a family member's copy) stay NULL.
    @Test func revocationPercentageMigratesADatabaseWithRefundsAlready() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            _ = try Migrator(migrations: Migration.all.filter { $0.version < "0005" }).apply(on: connection)
            try connection.executeScript(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'completed', false, now());
                INSERT INTO receipts (id, user_id, receipt_data) VALUES (1, 'u', 'MIIbase64receipt');
                INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id, receipt_id,
                    cancelled_at, is_upgraded, ownership_type, revocation_type, first_run_id, last_run_id) VALUES
                  ('T1', 'O', 'p', 'u', 1, NULL, NULL, NULL, NULL, 1, 1),
                  ('T2', 'O', 'p', 'u', 1, now(), NULL, NULL, NULL, 1, 1),
                  ('T3', 'O', 'p', 'u', 1, now(), false, 'PURCHASED', 'REFUND_PRORATED', 1, 1),
                  ('T4', 'O', 'p', 'u', 1, now(), true, NULL, NULL, 1, 1),
                  ('T5', 'O', 'p', 'u', 1, now(), NULL, 'PURCHASED', 'FAMILY_REVOKE', 1, 1),
                  ('T6', 'O', 'p', 'u', 1, now(), NULL, 'FAMILY_SHARED', NULL, 1, 1);
                """)
            let result = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": database.conninfo])
            #expect(result.status == 0, "\(result.output)")
            let rows = try connection.query(
                """
                SELECT transaction_id || ' ' || coalesce(revocation_percentage::text, '-') AS r
                FROM recon_transactions ORDER BY transaction_id
                """
            ).map { try $0.decode("r", as: String.self) }
            #expect(rows == ["T1 -", "T2 100", "T3 100", "T4 -", "T5 -", "T6 -"])
            let again = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": database.conninfo])
            #expect(again.status == 0 && again.stdout.contains("up to date"), "\(again.output)")
        }
    }

    @Test func aFailingMigrationLeavesItselfUnrecordedAndTheDatabaseUnchanged() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            let broken = Migrator(
                migrations: Migration.all + [
                    Migration(version: "9999", name: "broken", sql: "CREATE TABLE half_done (id int); SELECT 1/0;")
                ])
            #expect(throws: PostgresError.self) { try broken.apply(on: connection) }
            #expect(try broken.appliedVersions(on: connection) == Set(Migration.all.map(\.version)))
            #expect(
                try connection.query("SELECT to_regclass('half_done') IS NULL AS gone").first!.decode("gone") == true)
        }
    }

    @Test func vocabulariesAreEnforcedByTheDatabase() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try connection.execute(
                "INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'running', false, now())")
            let invalid: [PostgresQuery] = [
                "INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('weekly', 'running', false, now())",
                "INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'done', false, now())",
                "INSERT INTO recon_flags (run_id, user_id, kind) SELECT max(id), 'u', 'suspicious' FROM recon_runs",
                """
                INSERT INTO recon_corrections (run_id, user_id, entitlement, action, reason, after_active, applied)
                SELECT max(id), 'u', 'premium', 'delete', 'refund', false, false FROM recon_runs
                """,
                """
                INSERT INTO recon_corrections (run_id, user_id, entitlement, action, reason, after_active, applied)
                SELECT max(id), 'u', 'premium', 'revoke', 'because', false, false FROM recon_runs
                """,
                "INSERT INTO products (product_id, kind) VALUES ('p', 'subscription')",
            ]
            for statement in invalid {
                let error = try #require(throws: PostgresError.self) { try connection.execute(statement) }
                #expect(error.sqlState == "23514", "\(statement.sql)")
            }
        }
    }

    @Test func unreachableDatabaseExits69NamingTheHostAndNeverThePassword() throws {
        let result = try ReceiptReconBinary.run([
            "migrate", "--database-url", "host=/nonexistent user=x password=hunter2",
        ])
        #expect(result.status == 69)
        #expect(result.stderr.contains("/nonexistent"))
        #expect(!result.output.contains("hunter2"))

        let fromEnvironment = try ReceiptReconBinary.run(
            ["migrate"],
            environment: [
                "DATABASE_URL": "postgresql://app:hunter2@127.0.0.1:1/shop?connect_timeout=3"
            ])
        #expect(fromEnvironment.status == 69)
        #expect(fromEnvironment.stderr.contains("127.0.0.1"))
        #expect(!fromEnvironment.output.contains("hunter2"))
    }

    @Test func malformedDatabaseURLIsAConfigurationErrorThatDoesNotEchoIt() throws {
        let result = try ReceiptReconBinary.run(["migrate", "--database-url", "host=db password=hunter2 stray"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("not a valid libpq connection string"))
        #expect(!result.output.contains("hunter2"))
    }
}
