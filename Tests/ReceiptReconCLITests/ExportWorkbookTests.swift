import Foundation
import Postgres
import TestSupport
import Testing

/// What finance opens: `export --format xlsx` read back by openpyxl (a real spreadsheet reader), against
/// the CSV a spreadsheet types; and `export refunds`, which finds a refund by the month it happened in.
@Suite struct ExportWorkbookTests {
    /// Apple's ids as they are: 16 digits. The user id is a bigint past 2^53, as an app's own may be.
    static let insert = """
        INSERT INTO products (product_id, kind, entitlement) VALUES ('pro.monthly', 'auto_renewable', 'pro');
        INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES
          ('nightly', 'completed', false, '2026-10-21 02:00:00+00'),
          ('nightly', 'completed', false, '2026-11-04 02:00:00+00'),
          ('nightly', 'completed', false, '2026-12-03 02:00:00+00');
        INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id, environment,
            purchased_at, cancelled_at, is_trial, quantity, web_order_line_item_id, last_run_id, price, currency,
            revocation_type, revocation_percentage, source, refund_run_id) VALUES
          ('2000000123456789', '2000000123456781', 'pro.monthly', '9007199254740993', 'production',
           '2026-10-20 09:30:00+00', '2026-11-03 14:15:16+00', false, 1, '2000000098765432', 2, 9.99, 'USD',
           'REFUND_PRORATED', 25, 'server_api', 2),
          ('2000000123456790', '2000000123456781', 'pro.monthly', '9007199254740993', 'production',
           '2026-11-20 09:30:00+00', NULL, false, 1, '2000000098765433', 2, 9.99, 'USD', NULL, NULL, 'server_api',
           NULL),
          ('2000000123456791', '2000000123456791', 'pro.monthly', '42', 'production',
           '2026-11-25 00:00:00+00', '2026-12-02 08:00:00+00', true, 1, '2000000098765434', 3, 4.99, 'EUR',
           'REFUND_FULL', NULL, 'server_api', 3);
        INSERT INTO recon_refund_events (run_id, transaction_id, kind, price, currency, environment, revocation_type,
            revocation_percentage, recorded_at) VALUES
          (2, '2000000123456789', 'refund', 9.99, 'USD', 'production', 'REFUND_PRORATED', 25, '2026-11-04 02:00:07+00'),
          (3, '2000000123456791', 'refund', 4.99, 'EUR', 'production', 'REFUND_FULL', NULL, '2026-12-03 02:00:09+00');
        """

    static func withData<T>(_ body: (TestDatabase, URL) throws -> T) throws -> T {
        try TestDatabase.with { database in
            try database.connect().executeScript(insert)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "workbook-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            return try body(database, directory)
        }
    }

    static func export(_ database: TestDatabase, _ arguments: [String]) throws -> ReceiptReconBinary.Result {
        let result = try ReceiptReconBinary.run(
            ["export"] + arguments, environment: ["DATABASE_URL": database.conninfo])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    /// The workbook's one sheet as openpyxl reads it: per row, each cell's value (as Python prints it) and
    /// type (`s` string, `n` number, `d` date, `b` boolean), keyed by the header's column names.
    static func readWorkbook(_ path: String) throws -> [[String: [String?]]] {
        let script = """
            import json, sys, openpyxl
            rows = list(openpyxl.load_workbook(sys.argv[1]).active.iter_rows())
            names = [c.value for c in rows[0]]
            print(json.dumps([{n: [None if c.value is None else str(c.value), c.data_type] for n, c in zip(names, r)}
                              for r in rows[1:]]))
            """
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", script, path])
        #expect(result.status == 0, "\(result.stderrText)")
        return try JSONDecoder().decode([[String: [String?]]].self, from: result.stdout)
    }

    /// The CSV, read as is or the way a spreadsheet opens it: a field that looks like a whole number
    /// becomes one, and of more than 15 digits "the digits after the 15th are changed to zeros" (Microsoft's
    /// "Long numbers are displayed incorrectly in Excel"). openpyxl reads no CSV, so that typing is
    /// modelled here (docs/operations.md, "A spreadsheet keeps 15 digits").
    static func readCSV(_ path: String, typingNumbers: Bool = false) throws -> [[String: String]] {
        let script = """
            import csv, json, re, sys
            def typed(v):
                if sys.argv[2] == 'typed' and re.fullmatch(r'-?[0-9]+', v):
                    sign, digits = ('-', v[1:]) if v.startswith('-') else ('', v)
                    return sign + digits[:15] + '0' * max(0, len(digits) - 15)
                return v
            rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
            print(json.dumps([{n: typed(v) for n, v in zip(rows[0], r)} for r in rows[1:]]))
            """
        let result = try ChildProcess.run(
            "/usr/bin/python3", ["-c", script, path, typingNumbers ? "typed" : "as-is"])
        #expect(result.status == 0, "\(result.stderrText)")
        return try JSONDecoder().decode([[String: String]].self, from: result.stdout)
    }

    static let ids = ["transaction_id", "original_transaction_id", "web_order_line_item_id", "user_id"]

    @Test func anXlsxWorkbookKeepsTheSixteenDigitIdsACSVLoses() throws {
        try Self.withData { database, directory in
            let range = ["--from", "2026-10-01", "--to", "2026-12-01"]
            let xlsx = directory.appendingPathComponent("oct-nov.xlsx").path
            _ = try Self.export(database, ["transactions", "--format", "xlsx", "--output", xlsx] + range)
            let rows = try Self.readWorkbook(xlsx)
            #expect(rows.count == 3)
            let first = rows.first ?? [:]
            #expect(first["transaction_id"] == ["2000000123456789", "s"])
            #expect(first["original_transaction_id"] == ["2000000123456781", "s"])
            #expect(first["web_order_line_item_id"] == ["2000000098765432", "s"])
            #expect(first["user_id"] == ["9007199254740993", "s"])
            #expect(
                rows.map { $0["transaction_id"]?.first ?? nil } == [
                    "2000000123456789", "2000000123456790", "2000000123456791",
                ])
            // Dates are dates (UTC), prices and quantities numbers, flags booleans, NULL empty.
            #expect(first["purchased_at"] == ["2026-10-20 09:30:00", "d"])
            #expect(first["cancelled_at"] == ["2026-11-03 14:15:16", "d"])
            #expect(first["price"] == ["9.99", "n"])
            #expect(first["quantity"] == ["1", "n"])
            #expect(first["is_trial"] == ["False", "b"])
            #expect(first["expires_at"] == [nil, "n"])

            // The manifest covers the workbook: its bytes' sha256, its rows, its format.
            let manifest =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: xlsx + ".manifest.json")))
                as? [String: Any]
            #expect(manifest?["format"] as? String == "xlsx")
            #expect(manifest?["rows"] as? Int == 3)
            let sum = try ChildProcess.run("/usr/bin/sha256sum", [xlsx])
            #expect(manifest?["sha256"] as? String == String(sum.stdoutText.prefix(64)))
            // Same data, same bytes, as with CSV.
            let again = directory.appendingPathComponent("again.xlsx").path
            _ = try Self.export(database, ["transactions", "--format", "xlsx", "--output", again] + range)
            #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == Data(contentsOf: URL(fileURLWithPath: xlsx)))

            // For contrast: the CSV of the same rows, opened as a spreadsheet types it, loses the last digit
            // of every id; its manifest is CONTRACT §8's, without a format, and --format csv is the default.
            let csv = directory.appendingPathComponent("oct-nov.csv").path
            _ = try Self.export(database, ["transactions", "--output", csv] + range)
            let typed = try Self.readCSV(csv, typingNumbers: true)
            #expect(typed.first?["transaction_id"] == "2000000123456780")
            for name in Self.ids {
                #expect(typed.first?[name] != first[name]?.first ?? nil, "\(name) survived the CSV typing")
            }
            let csvManifest =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: csv + ".manifest.json")))
                as? [String: Any]
            #expect(csvManifest?["format"] == nil)
            let explicit = try Self.export(database, ["transactions", "--format", "csv"] + range).stdout
            #expect(explicit == String(decoding: try Data(contentsOf: URL(fileURLWithPath: csv)), as: UTF8.self))
        }
    }

    @Test func aRefundIsInTheFileOfTheMonthItHappenedIn() throws {
        try Self.withData { database, directory in
            let november = ["--from", "2026-11-01", "--to", "2026-12-01"]
            // The problem: the November refund of an October purchase is in no November transactions file.
            let transactions = try Self.export(database, ["transactions"] + november).stdout
            #expect(!transactions.contains("2000000123456789,"))

            let path = directory.appendingPathComponent("nov-refunds.csv").path
            _ = try Self.export(database, ["refunds", "--output", path] + november)
            let rows = try Self.readCSV(path)
            let csv = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            #expect(csv.hasPrefix(ExportHeaderTests.header("refunds")), "\(csv)")
            #expect(rows.count == 1)
            #expect(rows.first?["transaction_id"] == "2000000123456789")
            #expect(rows.first?["purchased_at"] == "2026-10-20T09:30:00Z")
            #expect(rows.first?["cancelled_at"] == "2026-11-03T14:15:16Z")
            #expect(rows.first?["refund_run_id"] == "2")
            #expect(rows.first?["refund_recorded_at"] == "2026-11-04T02:00:07Z")
            // 25 % of 9.99 is 2.4975, rounded once to a milliunit as the run's refundedAmount counts it.
            #expect(rows.first?["refunded_amount"] == "2.498")
            let manifest =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".manifest.json")))
                as? [String: Any]
            #expect(manifest?["view"] as? String == "refunds")
            #expect(manifest?["rows"] as? Int == 1)

            // December's refund of a November purchase is December's; a full refund without a percentage is 100 %.
            let december = try Self.export(database, ["refunds", "--from", "2026-12-01", "--to", "2027-01-01"]).stdout
            let decemberRows = december.split(separator: "\r\n")
            #expect(decemberRows.count == 2)
            #expect(decemberRows.last?.hasPrefix("2000000123456791,") == true)
            #expect(decemberRows.last?.hasSuffix(",3,2026-12-03T02:00:09Z,4.99") == true)
            // Production only unless asked, like transactions; and in a workbook too.
            let sandbox = try Self.export(database, ["refunds", "--environment", "sandbox"] + november).stdout
            #expect(sandbox.split(separator: "\r\n").count == 1)
            let xlsx = directory.appendingPathComponent("nov-refunds.xlsx").path
            _ = try Self.export(database, ["refunds", "--format", "xlsx", "--output", xlsx] + november)
            let book = try Self.readWorkbook(xlsx)
            #expect(book.count == 1)
            #expect(book.first?["transaction_id"] == ["2000000123456789", "s"])
            #expect(book.first?["refunded_amount"] == ["2.498", "n"])
            #expect(book.first?["refund_recorded_at"] == ["2026-11-04 02:00:07", "d"])
        }
    }

    @Test(
        arguments: [
            (["transactions", "--from", "2026-11-01", "--to", "2026-12-01", "--format", "ods"], "--format"),
            (["refunds", "--run", "2"], "--run"),
            (["refunds", "--from", "2026-11-01", "--to", "2026-12-01", "--include-dry-runs"], "--include-dry-runs"),
            (["flags", "--from", "2026-11-01", "--to", "2026-12-01", "--environment", "all"], "--environment"),
        ] as [([String], String)])
    func badUsesAreUsageErrors(arguments: [String], named: String) throws {
        let result = try ReceiptReconBinary.run(["export"] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.output)")
        #expect(result.stderr.contains(named), "\(result.stderr)")
    }

    @Test func helpNamesEachViewsRangeColumn() throws {
        let help = try ReceiptReconBinary.run(["export", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for (view, column) in [
            ("transactions", "purchased_at"), ("refunds", "cancelled_at"), ("corrections and flags", "created_at"),
            ("notifications_unmatched", "received_at"),
        ] {
            #expect(text.contains("\(view) on \(column)"), "\(view)")
        }
        #expect(text.contains("--format csv|xlsx"))
    }
}
