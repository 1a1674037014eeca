import Foundation
import Postgres
import TestSupport
import Testing

/// `export corrections|flags` for finance when dry runs share the range with the real run: a dry run
/// (recommended before every switch), then the real run, both through the built binary on one database.
@Suite(.serialized) struct ExportDryRunTests {
    /// Dry run 1, then real run 2, over the same drifted world; both write corrections and flags today.
    static func withTwoRuns(_ body: (TestDatabase, URL) throws -> Void) throws {
        try RunCommandTests.drifted { apple, database in
            let dry = try RunCommandTests.run(database, apple, ["--dry-run"])
            #expect(dry.status == 0, "\(dry.output)")
            let real = try RunCommandTests.run(database, apple)
            #expect(real.status == 0, "\(real.output)")
            let db = try database.connect()
            let runs = try db.query("SELECT id, dry_run FROM recon_runs ORDER BY id").map {
                "\(try $0.decode("id", as: Int64.self)) \(try $0.decode("dry_run", as: Bool.self))"
            }
            try #require(runs == ["1 true", "2 false"], "\(runs)")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "export-dry-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try body(database, directory)
        }
    }

    static var today: (from: String, to: String) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return (
            formatter.string(from: Date().addingTimeInterval(-86_400)),
            formatter.string(from: Date().addingTimeInterval(86_400))
        )
    }

    static func export(_ database: TestDatabase, _ arguments: [String]) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(["export"] + arguments, environment: ["DATABASE_URL": database.conninfo])
    }

    /// Data rows as dictionaries keyed by the header (the CSV has no quoted commas or newlines here).
    static func rows(_ csv: String) -> [[String: String]] {
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false).map(String.init) else {
            return []
        }
        return lines.dropFirst().map { line in
            Dictionary(
                uniqueKeysWithValues: zip(
                    header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        }
    }

    static func count(_ db: PostgresConnection, _ sql: PostgresQuery) throws -> Int {
        Int(try db.query(sql).first?.decode("n", as: Int32.self) ?? -1)
    }

    static func manifest(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path + ".manifest.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `[id: (dry_run, rows)]` of a manifest list.
    static func runs(_ value: Any?) -> [Int: (dryRun: Bool?, rows: Int)] {
        var out: [Int: (dryRun: Bool?, rows: Int)] = [:]
        for entry in value as? [[String: Any]] ?? [] {
            guard let id = entry["id"] as? Int, let rows = entry["rows"] as? Int else { continue }
            out[id] = (entry["dry_run"] as? Bool, rows)
        }
        return out
    }

    @Test func correctionsLeaveDryRunsOutByDefaultAndTheManifestSaysWhich() throws {
        try Self.withTwoRuns { database, directory in
            let db = try database.connect()
            let realCount = try Self.count(db, "SELECT count(*)::int AS n FROM recon_corrections WHERE run_id = 2")
            let dryCount = try Self.count(db, "SELECT count(*)::int AS n FROM recon_corrections WHERE run_id = 1")
            try #require(realCount > 0 && dryCount > 0, "both runs must have written corrections")

            let path = directory.appendingPathComponent("corrections.csv").path
            let result = try Self.export(
                database, ["corrections", "--from", Self.today.from, "--to", Self.today.to, "--output", path])
            #expect(result.status == 0, "\(result.output)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            // CONTRACT §8's columns, unchanged and in order: nothing about dry runs is added to the CSV.
            #expect(
                text.hasPrefix(
                    "id,run_id,created_at,user_id,entitlement,action,reason,applied,before_active,before_expires_at,"
                        + "after_active,after_expires_at,product_id,original_transaction_id,reverts_correction_id,"
                        + "reverted_by_run_id\r\n"))
            let rows = Self.rows(text)
            #expect(rows.count == realCount)
            #expect(rows.allSatisfy { $0["run_id"] == "2" && $0["applied"] == "true" }, "\(rows)")

            let manifest = try Self.manifest(path)
            for key in ["view", "from", "to", "generated_at", "rows", "sha256"] {
                #expect(manifest[key] != nil, "manifest key \(key) missing")
            }
            #expect(manifest["rows"] as? Int == realCount)
            let included = Self.runs(manifest["runs"])
            #expect(included.count == 1)
            #expect(included[2]?.dryRun == false && included[2]?.rows == realCount)
            let excluded = Self.runs(manifest["excluded_dry_runs"])
            #expect(excluded.count == 1 && excluded[1]?.rows == dryCount, "\(manifest)")

            // --include-dry-runs: both runs, each named in the manifest with its dry-run flag.
            let all = directory.appendingPathComponent("all.csv").path
            let withDry = try Self.export(
                database,
                [
                    "corrections", "--from", Self.today.from, "--to", Self.today.to, "--include-dry-runs", "--output",
                    all,
                ])
            #expect(withDry.status == 0, "\(withDry.output)")
            let allRows = Self.rows(try String(contentsOfFile: all, encoding: .utf8))
            #expect(allRows.count == realCount + dryCount)
            #expect(allRows.filter { $0["applied"] == "false" }.count == dryCount)
            let allManifest = try Self.manifest(all)
            let allRuns = Self.runs(allManifest["runs"])
            #expect(allRuns[1]?.dryRun == true && allRuns[1]?.rows == dryCount)
            #expect(allRuns[2]?.dryRun == false && allRuns[2]?.rows == realCount)
            #expect(Self.runs(allManifest["excluded_dry_runs"]).isEmpty)
        }
    }

    @Test func oneRunByIdIsExportedWholeEvenADryRun() throws {
        try Self.withTwoRuns { database, directory in
            let db = try database.connect()
            let dryFlags = try Self.count(db, "SELECT count(*)::int AS n FROM recon_flags WHERE run_id = 1")
            try #require(dryFlags > 0, "the dry run must have written flags")
            let path = directory.appendingPathComponent("flags-1.csv").path
            let result = try Self.export(database, ["flags", "--run", "1", "--output", path])
            #expect(result.status == 0, "\(result.output)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix(ExportHeaderTests.header("flags")), "\(text)")
            let rows = Self.rows(text)
            #expect(rows.count == dryFlags)
            #expect(rows.allSatisfy { $0["run_id"] == "1" })
            let manifest = try Self.manifest(path)
            #expect(manifest["from"] is NSNull && manifest["to"] is NSNull, "\(manifest)")
            let runs = Self.runs(manifest["runs"])
            #expect(runs.count == 1 && runs[1]?.dryRun == true && runs[1]?.rows == dryFlags)

            // With a range that holds none of its rows: an empty file, the run still named.
            let empty = try Self.export(
                database, ["flags", "--run", "2", "--from", "2001-01-01", "--to", "2001-01-02", "--output", path])
            #expect(empty.status == 0, "\(empty.output)")
            #expect(Self.rows(try String(contentsOfFile: path, encoding: .utf8)).isEmpty)
            let emptyRuns = Self.runs(try Self.manifest(path)["runs"])
            #expect(emptyRuns.count == 1 && emptyRuns[2]?.dryRun == false && emptyRuns[2]?.rows == 0)

            // The default flags export, on stdout: the real run's flags only.
            let flags = try Self.export(database, ["flags", "--from", Self.today.from, "--to", Self.today.to])
            #expect(flags.status == 0, "\(flags.output)")
            let real = Self.rows(flags.stdout)
            #expect(!real.isEmpty && real.allSatisfy { $0["run_id"] == "2" }, "\(flags.stdout)")
        }
    }

    @Test func anUnknownRunIsANamedError() throws {
        try TestDatabase.with { database in
            let result = try Self.export(database, ["corrections", "--run", "4242"])
            #expect(result.status == 65, "\(result.output)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("no run 4242"), "\(result.stderr)")
        }
    }

    @Test(
        arguments: [
            (["transactions", "--run", "1"], "--run"),
            (
                ["transactions", "--from", "2026-01-01", "--to", "2026-02-01", "--include-dry-runs"],
                "--include-dry-runs"
            ),
            (["flags", "--run", "1", "--include-dry-runs"], "--include-dry-runs"),
            (["flags", "--run", "1", "--from", "2026-01-01"], "--to"),
            (["corrections", "--run", "1", "--to", "2026-01-01"], "--from"),
            (["corrections", "--run", "0"], "--run"),
            (["corrections", "--run", "last"], "--run"),
            (["corrections", "--include-dry-runs"], "--from"),
        ] as [([String], String)])
    func badCombinationsAreUsageErrors(arguments: [String], named: String) throws {
        let result = try ReceiptReconBinary.run(["export"] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.output)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(named), "\(result.stderr)")
    }
}
