import Foundation
import Postgres
import TestSupport
import Testing

/// `receipt-recon export` through the built binary on a hostile dataset, read back with Python's csv module.
@Suite struct ExportCommandTests {
    static let insert = """
        INSERT INTO products (product_id, kind, entitlement) VALUES ('prod.one', 'auto_renewable', '=pro');
        INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'completed', false, now());
        INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id, environment,
            purchased_at, ownership_type, web_order_line_item_id, is_trial, quantity, last_run_id) VALUES
          ('T1', '-minus', 'prod.one', E'a,b "q"\\r\\nline', 'production', '2026-01-01 00:00:00+00', '', NULL, true, -1, 1),
          ('T2', 'O2', 'prod.none', 'ünïcødé 🧾', 'production', '2026-01-15 10:20:30.789+00', '+plus', '@at', false, 1, NULL),
          ('T3', 'O3', 'prod.one', 'at-to', 'production', '2026-02-01 00:00:00+00', NULL, NULL, NULL, NULL, NULL),
          ('T4', 'O4', 'prod.one', 'sandbox', 'sandbox', '2026-01-10 00:00:00+00', NULL, NULL, NULL, NULL, NULL),
          ('T0', 'O0', 'prod.one', 'before', 'production', '2025-12-31 23:59:59.999+00', NULL, NULL, NULL, NULL, NULL);
        -- The finance columns as the writer stores them (CurrencyAmount's exact text): 1990 and 10000 milliunits.
        UPDATE recon_transactions SET price = 1.99, currency = 'USD', storefront = 'USA', offer_type = 1,
            offer_discount_type = 'FREE_TRIAL', transaction_reason = 'PURCHASE', revocation_type = '-REFUND_FULL',
            source = 'signed_row', revocation_percentage = 33.333 WHERE transaction_id = 'T1';
        UPDATE recon_transactions SET price = 10, currency = 'EUR', source = 'server_api' WHERE transaction_id = 'T2';
        INSERT INTO recon_corrections (run_id, user_id, entitlement, action, reason, before_active, after_active,
            after_expires_at, product_id, original_transaction_id, applied, created_at) VALUES
          (1, '=HYPERLINK("x")', E'\\ttab', 'revoke', 'refund', NULL, false, '2026-03-01 12:00:00+00', '', NULL, true,
           '2026-01-05 08:00:00+00'),
          (1, 'late', 'pro', 'grant', 'renewal', true, true, NULL, NULL, NULL, false, '2026-02-01 00:00:00+00');
        INSERT INTO recon_flags (run_id, receipt_id, user_id, kind, detail, created_at) VALUES
          (1, NULL, E'\\rcr', 'refunded', E'line1\\nline2, "q"', '2026-01-20 00:00:00+00'),
          (1, 7, 'u2', 'unverified', '', '2026-01-20 00:00:00+00'),
          (1, 8, 'u3', 'unverified', NULL, '2026-01-20 00:00:00+00');
        """

    static func withData<T>(_ body: (TestDatabase, URL) throws -> T) throws -> T {
        try TestDatabase.with { database in
            try database.connect().executeScript(insert)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            return try body(database, directory)
        }
    }

    static func export(_ database: TestDatabase, _ arguments: [String]) throws -> ReceiptReconBinary.Result {
        let result = try ReceiptReconBinary.run(
            ["export"] + arguments + ["--from", "2026-01-01", "--to", "2026-02-01"],
            environment: ["DATABASE_URL": database.conninfo])
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    static func readCSV(_ path: String) throws -> [[String]] {
        let script =
            "import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))"
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", script, path])
        #expect(result.status == 0, "\(result.stderrText)")
        return try JSONDecoder().decode([[String]].self, from: result.stdout)
    }

    @Test func transactionsReadBackFieldForField() throws {
        try Self.withData { database, directory in
            let path = directory.appendingPathComponent("tx.csv").path
            _ = try Self.export(database, ["transactions", "--output", path])
            let rows = try Self.readCSV(path)
            #expect(
                rows == [
                    [
                        "transaction_id", "original_transaction_id", "user_id", "product_id", "product_kind",
                        "entitlement",
                        "environment", "ownership_type", "purchased_at", "original_purchased_at", "expires_at",
                        "cancelled_at",
                        "cancellation_reason", "is_trial", "is_intro_offer", "is_upgraded", "quantity",
                        "web_order_line_item_id", "last_run_id", "price", "currency", "storefront", "offer_type",
                        "offer_discount_type", "transaction_reason", "revocation_type", "source",
                        "revocation_percentage",
                    ],
                    [
                        "T1", "'-minus", "a,b \"q\"\r\nline", "prod.one", "auto_renewable", "'=pro", "production", "",
                        "2026-01-01T00:00:00Z", "", "", "", "", "true", "", "", "-1", "", "1", "1.99", "USD", "USA",
                        "1",
                        "FREE_TRIAL", "PURCHASE", "'-REFUND_FULL", "signed_row", "33.333",
                    ],
                    [
                        "T2", "O2", "ünïcødé 🧾", "prod.none", "", "", "production", "'+plus", "2026-01-15T10:20:30Z",
                        "", "",
                        "", "", "false", "", "", "1", "'@at", "", "10", "EUR", "", "", "", "", "", "server_api", "",
                    ],
                ])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasSuffix("\r\n"))
            #expect(text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 4)  // one CRLF inside a cell
            // Empty string and NULL stay distinguishable: ownership_type '' → "", web_order_line_item_id NULL → empty.
            #expect(text.contains(",production,\"\",2026-01-01T00:00:00Z,,,,,true,,,-1,,1,1.99,USD,"))
            // Prices print exactly, in currency units; NULL finance fields are empty.
            #expect(text.contains(",'@at,,10,EUR,,,,,,server_api,\r\n"))

            // Manifest: rows and sha256 of the file bytes.
            let manifest =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".manifest.json")))
                as? [String: Any]
            #expect(manifest?["view"] as? String == "transactions")
            #expect(manifest?["from"] as? String == "2026-01-01T00:00:00Z")
            #expect(manifest?["to"] as? String == "2026-02-01T00:00:00Z")
            #expect(manifest?["rows"] as? Int == 2)
            #expect(manifest?["generated_at"] is String)
            let sum = try ChildProcess.run("/usr/bin/sha256sum", [path])
            #expect(manifest?["sha256"] as? String == String(sum.stdoutText.prefix(64)))

            // Byte-identical second export; stdout carries the same bytes.
            let again = directory.appendingPathComponent("tx2.csv").path
            _ = try Self.export(database, ["transactions", "--output", again])
            #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == bytes)
            let stdout = try Self.export(database, ["transactions"])
            #expect(stdout.stdout == text)
        }
    }

    @Test func environmentAllAndSandbox() throws {
        try Self.withData { database, _ in
            let all = try Self.export(database, ["transactions", "--environment", "all"]).stdout
            #expect(all.contains("\r\nT4,"))
            let sandbox = try Self.export(database, ["transactions", "--environment", "sandbox"]).stdout
            #expect(sandbox.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2)
            #expect(sandbox.contains("\r\nT4,"))
            let production = try Self.export(database, ["transactions"]).stdout
            #expect(!production.contains("T4,"))
            #expect(!production.contains("T3,") && !production.contains("T0,"))
        }
    }

    @Test func correctionsAndFlagsReadBack() throws {
        try Self.withData { database, directory in
            let corrections = directory.appendingPathComponent("c.csv").path
            _ = try Self.export(database, ["corrections", "--output", corrections])
            #expect(
                try Self.readCSV(corrections) == [
                    [
                        "id", "run_id", "created_at", "user_id", "entitlement", "action", "reason", "applied",
                        "before_active",
                        "before_expires_at", "after_active", "after_expires_at", "product_id",
                        "original_transaction_id", "reverts_correction_id", "reverted_by_run_id",
                    ],
                    [
                        "1", "1", "2026-01-05T08:00:00Z", "'=HYPERLINK(\"x\")", "'\ttab", "revoke", "refund", "true",
                        "", "",
                        "false", "2026-03-01T12:00:00Z", "", "", "", "",
                    ],
                ])
            let flags = directory.appendingPathComponent("f.csv").path
            _ = try Self.export(database, ["flags", "--output", flags])
            #expect(
                try Self.readCSV(flags) == [
                    ["id", "run_id", "created_at", "user_id", "receipt_id", "kind", "detail"],
                    ["1", "1", "2026-01-20T00:00:00Z", "'\rcr", "", "refunded", "line1\nline2, \"q\""],
                    ["2", "1", "2026-01-20T00:00:00Z", "u2", "7", "unverified", ""],
                    ["3", "1", "2026-01-20T00:00:00Z", "u3", "8", "unverified", ""],
                ])
            let text = try String(contentsOfFile: flags, encoding: .utf8)
            #expect(text.contains(",7,unverified,\"\"\r\n"))
            #expect(text.contains(",8,unverified,\r\n"))
        }
    }

    @Test func unreachableDatabaseExits69() throws {
        let result = try ReceiptReconBinary.run(
            ["export", "flags", "--from", "2026-01-01", "--to", "2026-02-01"],
            environment: ["DATABASE_URL": "postgresql://127.0.0.1:1/none?connect_timeout=2"])
        #expect(result.status == 69, "\(result.output)")
        #expect(result.stdout.isEmpty)
    }
}
