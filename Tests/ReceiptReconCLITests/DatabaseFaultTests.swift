import Foundation
import Postgres
import TestSupport
import Testing

/// PostgreSQL failing under a nightly run, as operators meet it: restarted (a managed database's
/// failover, a minor-version upgrade), killed outright, made read-only. A restart costs the run a
/// reconnect and nothing else; a database that stays away ends the run with 69 once the reconnect
/// window has passed, and nothing is lost: the next run ends where an undisturbed run ends.
///
/// Each test has its own cluster (`ScratchCluster`): faulting the suite's shared one would cut every
/// other test's connections.
@Suite struct DatabaseFaultTests {
    /// One world seeded twice in a cluster of its own, the simulator serving it, and the undisturbed
    /// run's result to compare with. `serverAPI`: the world with StoreKit 2 users, through the App Store
    /// Server API, whose nights also read notification history, queue their users and lease the
    /// request budget, each on a connection of its own.
    final class Fixture {
        static let asOf = "2026-11-01T00:00:00Z"
        static let world = ["--users", "1500", "--seed", "11", "--as-of", asOf]

        let cluster: ScratchCluster
        let serve: ChildProcess.Running
        let arguments: [String]
        let base: String
        let pkiDirectory: URL?

        init(serverAPI: Bool = false) throws {
            cluster = try ScratchCluster(settings: ["fsync": "off"])
            pkiDirectory =
                serverAPI ? FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID())") : nil
            let pki = pkiDirectory.map { ["--pki-dir", $0.path] } ?? []
            let admin = try PostgresConnection(conninfo: cluster.conninfo)
            for name in ["undisturbed", "faulty"] { try admin.execute("CREATE DATABASE \(unescaped: name)") }
            let expectedFile = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: expectedFile) }
            for name in ["undisturbed", "faulty"] {
                let seeded = try ReceiptReconBinary.run(
                    ["simulator", "seed"] + Self.world + pki + ["--expected", expectedFile.path]
                        + (serverAPI ? ["--backend", "server-api"] : []),
                    environment: ["DATABASE_URL": "host=\(cluster.directory) user=recon dbname=\(name)"], timeout: 300)
                try #require(seeded.status == 0, "\(seeded.output)")
            }
            let expected = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: expectedFile)) as? [String: Any])
            // Latency makes a run last a few seconds, long enough to fault the database under it.
            let port = try LoopbackSocket.freePort()
            serve = try ReceiptReconBinary.start(
                ["simulator", "serve", "--port", String(port), "--latency-ms", "40"] + Self.world + pki)
            SeededWorldAcceptanceTests.waitForListening(port: port)
            base = "http://127.0.0.1:\(port)"
            arguments =
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--rate", "2000", "--concurrency", "16"]
                + (expected["bundle_ids"] as? [String] ?? []).flatMap { ["--bundle-id", $0] }
                + (pkiDirectory.map { ["--apple-root-certificate", SeededPKI(directory: $0).rootCertificate.path] }
                    ?? [])
            let undisturbed = try run(on: "undisturbed")
            try #require([0, 1].contains(undisturbed.status), "\(undisturbed.output)")
        }

        deinit {
            serve.signal(SIGTERM)
            _ = try? serve.wait(timeout: 30)
            cluster.stop()
            if let pkiDirectory { try? FileManager.default.removeItem(at: pkiDirectory) }
        }

        func conninfo(_ name: String) -> String { "host=\(cluster.directory) user=recon dbname=\(name)" }

        func environment(_ name: String) throws -> [String: String] {
            let environment = [
                "DATABASE_URL": conninfo(name),
                "APPLE_VERIFY_URL_PRODUCTION": base + "/production/verifyReceipt",
                "APPLE_VERIFY_URL_SANDBOX": base + "/sandbox/verifyReceipt",
            ]
            guard let pkiDirectory else { return environment }
            return environment.merging(try SeededPKI(directory: pkiDirectory).serverAPIEnvironment(base: base)) { $1 }
        }

        func run(on name: String, _ extra: [String] = []) throws -> ReceiptReconBinary.Result {
            try ReceiptReconBinary.run(arguments + extra, environment: try environment(name), timeout: 600)
        }

        /// Starts a run on the faulty database and returns once it has written `results` results.
        func startRun(_ extra: [String] = [], writtenAtLeast results: Int = 300) throws -> ChildProcess.Running {
            let running = try ReceiptReconBinary.start(arguments + extra, environment: try environment("faulty"))
            let watcher = try PostgresConnection(conninfo: conninfo("faulty"))
            var written = 0
            for _ in 0..<600 where written < results {
                usleep(50_000)
                written = try watcher.query("SELECT count(*) AS n FROM recon_results").first!.decode("n")
            }
            try #require(written >= results, "the run wrote nothing to fault the database under")
            return running
        }

        func rows(_ name: String, _ sql: String) throws -> [String] {
            try PostgresConnection(conninfo: conninfo(name)).query(PostgresQuery(unsafeSQL: sql)).map {
                try $0.decode(at: 0, as: String.self)
            }
        }

        /// The faulty database ends where the undisturbed one did: the same applied corrections and the
        /// same entitlements, row for row.
        func expectSameOutcome() throws {
            let corrections = """
                SELECT user_id || ' ' || entitlement || ' ' || action || ' ' || reason AS c
                FROM recon_corrections WHERE applied ORDER BY 1
                """
            let entitlements = """
                SELECT user_id || ' ' || entitlement || ' ' || active || ' ' || coalesce(expires_at::text, '-') || ' '
                       || coalesce(product_id, '-') || ' ' || coalesce(original_transaction_id, '-') AS e
                FROM entitlements ORDER BY 1
                """
            let want = try rows("undisturbed", corrections)
            #expect(!want.isEmpty)
            #expect(try rows("faulty", corrections) == want, "the corrections differ from an undisturbed run's")
            #expect(try rows("faulty", entitlements) == rows("undisturbed", entitlements))
        }
    }

    @Test(arguments: [false, true])
    func aRunSurvivesARestartAndEndsAsAnUndisturbedRunDoes(serverAPI: Bool) throws {
        let fixture = try Fixture(serverAPI: serverAPI)
        let running = try fixture.startRun()
        try fixture.cluster.restart()
        let result = try running.wait(timeout: 600)

        #expect([0, 1].contains(result.status), "exit \(result.status): \(result.stderrText.suffix(2000))")
        #expect(result.stderrText.contains("event=database.reconnected"), "\(result.stderrText.suffix(2000))")
        // The request budget's ledger lost its connection too, and waits the restart out like the others.
        #expect(
            result.stderrText.contains("event=database.reconnected connection=budget"),
            "\(result.stderrText.suffix(2000))")
        let status = "SELECT status FROM recon_runs ORDER BY id"
        #expect(try fixture.rows("faulty", status) == fixture.rows("undisturbed", status))
        try fixture.expectSameOutcome()
    }

    @Test func aServerKilledForGoodEndsTheRunWith69AfterTheWindowAndLosesNothing() throws {
        let fixture = try Fixture()
        let running = try fixture.startRun(["--db-reconnect-window", "3"])
        fixture.cluster.killServer()
        let result = try running.wait(timeout: 120)

        #expect(result.status == 69, "exit \(result.status): \(result.stderrText.suffix(2000))")
        #expect(result.stderrText.contains("--db-reconnect-window"), "\(result.stderrText.suffix(2000))")
        try fixture.cluster.restart()
        let next = try fixture.run(on: "faulty")
        #expect([0, 1].contains(next.status), "\(next.output)")
        let status = "SELECT status FROM recon_runs ORDER BY id"
        #expect(try fixture.rows("faulty", status) == ["interrupted"] + fixture.rows("undisturbed", status))
        try fixture.expectSameOutcome()
    }

    @Test func aDatabaseMadeReadOnlyEndsTheRunWith69NamingItAndLosesNothing() throws {
        let fixture = try Fixture()
        let running = try fixture.startRun()
        let admin = try PostgresConnection(conninfo: fixture.cluster.conninfo)
        try admin.execute("ALTER SYSTEM SET default_transaction_read_only = on")
        try admin.execute("SELECT pg_reload_conf()")
        let result = try running.wait(timeout: 600)

        #expect(result.status == 69, "exit \(result.status): \(result.stderrText.suffix(2000))")
        #expect(result.stderrText.contains("read-only"), "\(result.stderrText.suffix(2000))")
        try admin.execute("ALTER SYSTEM RESET default_transaction_read_only")
        try admin.execute("SELECT pg_reload_conf()")
        let next = try fixture.run(on: "faulty")
        #expect([0, 1].contains(next.status), "\(next.output)")
        try fixture.expectSameOutcome()
    }
}
