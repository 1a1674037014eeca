import Foundation
import Postgres
import TestSupport
import Testing

/// `receipt-recon demo`: the whole job end to end on its own throwaway cluster and the simulator.
@Suite(.serialized) struct DemoCommandTests {
    /// With each backend: the simulator answers verifyReceipt and the App Store Server API alike.
    @Test(arguments: ["verify-receipt", "server-api"])
    func theDemoRunsEndToEndAndLeavesNoClusterBehind(backend: String) throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        // The demo's own temporary directory, so that only its clusters are counted (other test processes
        // on the machine start and stop theirs in the shared one meanwhile).
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("demo-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        // An exported DATABASE_URL is someone's database (the shell of an operator about to run the
        // nightly job): the demo uses its own cluster and leaves that database exactly as it was.
        let result = try TestDatabase.with(migrated: false) { precious in
            let connection = try precious.connect()
            try connection.executeScript(
                """
                CREATE TABLE receipts (id bigserial PRIMARY KEY, user_id text NOT NULL, receipt_data text NOT NULL);
                INSERT INTO receipts (user_id, receipt_data) VALUES ('a-real-user', 'cmVhbA==');
                """)
            let before = try Self.schemaAndRows(connection)
            let result = try ReceiptReconBinary.run(
                ["demo", "--users", "1000", "--output-dir", output.path, "--backend", backend],
                environment: ["DATABASE_URL": precious.conninfo, "TMPDIR": temporary.path], timeout: 300)
            #expect(try Self.schemaAndRows(connection) == before, "the database of DATABASE_URL was changed")
            return result
        }
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("throwaway PostgreSQL cluster"), "\(result.stdout)")
        #expect(result.stdout.contains("match the simulator's expectation exactly"))
        #expect(result.stdout.contains("StoreKit 2 signed transactions: verified locally"))
        #expect(result.stdout.contains("transaction_history") == (backend == "server-api"))
        #expect(result.stdout.contains("verify-user"))
        #expect(result.stdout.contains("Open next:"))
        for file in [
            "transactions.csv", "corrections.csv", "flags.csv", "transactions.csv.manifest.json",
            "corrections.csv.manifest.json", "flags.csv.manifest.json", "report.html",
        ] {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(file).path), "\(file) missing")
        }
        let summary = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("run-summary.json")))
        #expect((summary as? [String: Any])?["status"] != nil)
        // Its throwaway cluster is gone once it exits.
        #expect(try Self.clusterDirectories(in: temporary.path).isEmpty)
    }

    /// `--database-url` is the one way to give the demo a database; one holding data of its own is refused
    /// before anything is created in it.
    @Test func aDatabaseURLWithDataIsRefusedBeforeMigrating() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.executeScript(
                """
                CREATE TABLE products (product_id text PRIMARY KEY, kind text NOT NULL);
                INSERT INTO products VALUES ('gold', 'non_consumable');
                """)
            let before = try Self.schemaAndRows(connection)
            let result = try ReceiptReconBinary.run(
                ["demo", "--users", "1000", "--database-url", database.conninfo, "--output-dir", "/nonexistent/demo"],
                timeout: 120)
            #expect(result.status == 65, "\(result.output)")
            #expect(result.stderr.contains("products") && result.stderr.contains("not empty"), "\(result.stderr)")
            #expect(try Self.schemaAndRows(connection) == before)
        }
    }

    /// Every table of the database with its row count: what "untouched" means here.
    static func schemaAndRows(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT table_schema || '.' || table_name AS t FROM information_schema.tables
            WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1
            """
        ).map { row in
            let table: String = try row.decode("t")
            let count: Int64 =
                try connection.query("SELECT count(*) AS n FROM \(unescaped: table)").first?.decode("n") ?? -1
            return "\(table) \(count)"
        }
    }

    static func clusterDirectories(in temporary: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("recon-pg-") })
    }
}
