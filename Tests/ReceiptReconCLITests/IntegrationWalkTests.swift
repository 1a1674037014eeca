import Foundation
import Postgres
import ReconSchema
import TestSupport
import Testing

/// docs/integration.md as a newcomer follows it: every `sh` block, in order, each with `bash -e`, on a
/// throwaway cluster that starts as the doc's example app (bigint user ids, a uuid receipt key, tables of
/// its own names), through the mapping file and the SQL `receipt-recon mapping` prints from it, to a first
/// dry run and its report, as the roles the doc creates. Then, past the doc, the real run as the nightly
/// role: its corrections reach the app's own table through the generated sync triggers.
@Suite struct IntegrationWalkTests {
    static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/integration.md")

    /// The body of every block fenced as ```sh, in document order.
    static func shellBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```sh" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    static let now = Date()
    static func day(_ offset: Double) -> Date { now.addingTimeInterval(offset * 86_400) }

    /// The app's rows, as the app wrote them before receipt-recon came.
    static func seedTheApp(_ shop: PostgresConnection, _ apple: ScriptedAppleServer) throws {
        try shop.executeScript(
            """
            INSERT INTO products (sku, product_type, unlocks, access_days) VALUES
                ('com.example.monthly', 'subscription', 'premium', NULL),
                ('com.example.lifetime', 'lifetime', 'pro', NULL),
                ('com.example.pass30', 'pass', 'season_pass', 30),
                ('com.example.coins', 'coins', NULL, NULL);
            INSERT INTO iap_receipts (account_id, payload) VALUES
                (1001, 'V0FMSy0xMDAx'), (1002, 'V0FMSy0xMDAy'), (1003, 'V0FMSy0xMDAz');
            INSERT INTO review_accounts VALUES (1005, 'App Review');
            """)
        try shop.execute(
            """
            INSERT INTO account_features VALUES
                (1002, 'premium', true, \(day(10)), 'com.example.monthly', '2002', 'purchase', \(day(-40))),
                (1003, 'pro', true, NULL, 'com.example.lifetime', '3003', 'purchase', \(day(-90))),
                (1004, 'pro', true, NULL, NULL, NULL, 'promo', \(day(-5)))
            """)
        typealias P = ScriptedAppleServer.Purchase
        // Bought for life, never granted: grant.
        apple.answer(
            "V0FMSy0xMDAx",
            with: .valid([
                P(
                    product: "com.example.lifetime", transactionID: "1001", originalTransactionID: "1001",
                    purchased: day(-3))
            ]))
        // The subscription lapsed five days ago; the app still says until day 10: revoke.
        apple.answer(
            "V0FMSy0xMDAy",
            with: .valid([
                P(
                    product: "com.example.monthly", transactionID: "2002", originalTransactionID: "2002",
                    purchased: day(-35), expires: day(-5))
            ]))
        // In agreement: nothing.
        apple.answer(
            "V0FMSy0xMDAz",
            with: .valid([
                P(
                    product: "com.example.lifetime", transactionID: "3003", originalTransactionID: "3003",
                    purchased: day(-90))
            ]))
    }

    @Test func theNewcomersWalkRunsEveryCommandOfTheDocument() throws {
        // The database the app already has: empty of receipt-recon, on the tests' server. The doc's roles
        // belong to the whole server: dropped again whatever happens.
        try TestDatabase.with(migrated: false) { database in
            let admin = try database.connect()
            defer {
                for role in ["recon_job", "recon_owner"] {
                    _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP OWNED BY \(role)"))
                    _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(role)"))
                }
            }
            try Self.walk(database)
        }
    }

    static func walk(_ database: TestDatabase) throws {
        let blocks = Self.shellBlocks(try String(contentsOf: Self.document, encoding: .utf8))
        try #require(blocks.count >= 8, "docs/integration.md has \(blocks.count) sh blocks")
        let superuser = database.conninfo
        let server = try ConnectionString(database.conninfo).options
        let apple = try ScriptedAppleServer()

        let home = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let binaries = ReceiptReconBinary.url.deletingLastPathComponent().path
        var environment =
            [
                "PATH": "\(binaries):/usr/local/bin:/usr/bin:/bin", "HOME": home.path, "LANG": "C.UTF-8",
                "PGDATABASE": database.name,
            ].merging(apple.environment) { $1 }
        for (keyword, variable) in [
            ("host", "PGHOST"), ("port", "PGPORT"), ("user", "PGUSER"), ("password", "PGPASSWORD"),
        ] {
            if let value = server[keyword] { environment[variable] = value }
        }

        var outputs: [String] = []
        for (index, block) in blocks.enumerated() {
            let script = home.appendingPathComponent("block-\(index).sh")
            try ("set -e\ncd \"$HOME\"\n" + block + "\n").write(to: script, atomically: true, encoding: .utf8)
            let result = try ChildProcess.start("/bin/bash", [script.path], environment: environment).wait(timeout: 300)
            let output = result.stdoutText + result.stderrText
            try #require(result.status == 0, "block \(index + 1) failed (\(result.status)):\n\(block)\n---\n\(output)")
            outputs.append(output)
            if index == 0 { try Self.seedTheApp(try PostgresConnection(conninfo: superuser), apple) }
        }

        // Step 1 saw the app's own products table and said what it lacks.
        #expect(outputs[1].contains("problem: products.product_id: missing"), "\(outputs[1])")
        #expect(outputs[1].contains("migrate --check: exit 78"), "\(outputs[1])")
        // Before the GRANTs, the nightly role's check said what it lacks, as GRANTs to it, exit 77.
        let lacking = try #require(blocks.firstIndex { $0.contains("user=recon_job' receipt-recon migrate --check") })
        #expect(outputs[lacking].contains("migrate --check: exit 77"), "\(outputs[lacking])")
        #expect(outputs[lacking].contains("GRANT USAGE ON SCHEMA"), "\(outputs[lacking])")
        #expect(outputs[lacking].contains("TO recon_job"), "\(outputs[lacking])")
        // All at once: the tables the night writes, the budget every shard shares and the sequences it
        // draws ids from are in the one script, not found one failed night at a time.
        for needed in ["ON TABLE recon.entitlements", "ON TABLE recon.recon_request_budget", "ON SEQUENCE recon."] {
            #expect(outputs[lacking].contains(needed), "\(needed) missing from:\n\(outputs[lacking])")
        }
        // After them it passed, the mapping's views, tables and triggers found; the dry run printed its
        // summary and the report the same run.
        let check = try #require(blocks.lastIndex { $0.contains("user=recon_job' receipt-recon migrate --check") })
        #expect(check > lacking)
        #expect(outputs[check].contains("ready:"), "\(outputs[check])")
        #expect(!outputs[check].contains("problem:"), "\(outputs[check])")
        let dryRun = try #require(blocks.firstIndex { $0.contains("receipt-recon run --dry-run") })
        #expect(outputs[dryRun].contains("Run 1 (nightly"), "\(outputs[dryRun])")
        let oneUser = try #require(blocks.firstIndex { $0.contains("receipt-recon verify-user 1001 --dry-run") })
        #expect(outputs[oneUser].contains("pro"), "\(outputs[oneUser])")
        let shop = try PostgresConnection(conninfo: superuser)
        func corrections(applied: Bool) throws -> Set<String> {
            Set(
                try shop.query(
                    "SELECT user_id || ' ' || entitlement || ' ' || action AS c FROM recon.recon_corrections WHERE applied = \(applied)"
                ).map { try $0.decode("c", as: String.self) })
        }
        let expected: Set<String> = ["1001 pro grant", "1002 premium revoke"]
        #expect(try corrections(applied: false) == expected)
        #expect(try corrections(applied: true).isEmpty)
        // The uuid keys got bigint ids, one each, which the job's results refer to.
        let keyed: Int = try shop.query(
            """
            SELECT count(DISTINCT s.receipt_id)::int AS n FROM recon.recon_results s
            JOIN recon.receipt_keys k ON k.id = s.receipt_id JOIN iap_receipts r ON r.receipt_id = k.key
            """
        ).first!.decode("n")
        #expect(keyed == 3)
        func features() throws -> [String] {
            try shop.query(
                "SELECT account_id || '/' || feature || '=' || enabled || '/' || granted_by AS f FROM account_features ORDER BY 1"
            ).map { try $0.decode("f") }
        }
        let before = ["1002/premium=true/purchase", "1003/pro=true/purchase", "1004/pro=true/promo"]
        #expect(try features() == before, "the dry run changed the app's table")

        // The GRANTs of step 6 are exactly JobPrivileges, and nothing on the app's own tables.
        let granted = Set(
            try shop.query(
                """
                SELECT c.relname || ' ' || p AS g
                FROM pg_class c, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) p
                WHERE c.relnamespace IN ('recon'::regnamespace, 'public'::regnamespace) AND c.relkind IN ('r', 'v', 'p')
                  AND has_table_privilege('recon_job', c.oid, p)
                """
            ).map { try $0.decode("g", as: String.self) })
        let needed = Set(JobPrivileges.tables.flatMap { table, privileges in privileges.map { "\(table) \($0)" } })
        #expect(granted == needed)
        let sequences = Set(
            try shop.query(
                "SELECT relname::text AS s FROM pg_class WHERE CASE WHEN relkind = 'S' THEN has_sequence_privilege('recon_job', oid, 'USAGE') END"
            ).map { try $0.decode("s", as: String.self) })
        #expect(sequences == Set(JobPrivileges.sequences))

        // Past the doc: the nightly run as recon_job applies what the dry run showed, in the app's table.
        var job = environment
        job["DATABASE_URL"] = "user=recon_job"
        let run = try ChildProcess.start(ReceiptReconBinary.url.path, ["run"], environment: job).wait(timeout: 120)
        #expect(run.status == 0, "\(run.stdoutText)\(run.stderrText)")
        #expect(try corrections(applied: true) == expected)
        #expect(
            try features() == [
                "1001/pro=true/purchase", "1002/premium=false/purchase", "1003/pro=true/purchase",
                "1004/pro=true/promo",
            ])
        for arguments in [
            ["verify-user", "1001"], ["report"],
            ["export", "corrections", "--from", "2000-01-01", "--to", "2100-01-01"],
        ] {
            let result = try ChildProcess.start(ReceiptReconBinary.url.path, arguments, environment: job).wait(
                timeout: 120)
            #expect(result.status == 0, "\(arguments): \(result.stdoutText)\(result.stderrText)")
        }
        // Undoing the night needs no GRANT beyond step 6, and reaches the app's table the same way.
        let night: Int64 = try shop.query(
            "SELECT max(id) AS id FROM recon.recon_runs WHERE kind = 'nightly' AND NOT dry_run"
        ).first!.decode("id")
        let revert = try ChildProcess.start(
            ReceiptReconBinary.url.path, ["revert", "--run", String(night)], environment: job
        ).wait(timeout: 120)
        #expect(revert.status == 0, "\(revert.stdoutText)\(revert.stderrText)")
        #expect(
            try features() == [
                "1001/pro=false/purchase", "1002/premium=true/purchase", "1003/pro=true/purchase",
                "1004/pro=true/promo",
            ])
        // The app's own write reaches the job's table.
        try shop.execute("UPDATE account_features SET enabled = true, until = \(Self.day(30)) WHERE account_id = 1002")
        let synced: Bool = try shop.query(
            "SELECT active FROM recon.entitlements WHERE user_id = '1002' AND entitlement = 'premium'"
        ).first!.decode("active")
        #expect(synced)
        // A receipt the app stores later gets an id of its own at once, and keeps it.
        try shop.execute("INSERT INTO iap_receipts (account_id, payload) VALUES (1006, 'V0FMSy0xMDA2')")
        let ids = try shop.query("SELECT id FROM recon.receipts ORDER BY id").map {
            try $0.decode("id", as: Int64.self)
        }
        #expect(ids.count == 4 && Set(ids).count == 4, "\(ids)")
    }
}
