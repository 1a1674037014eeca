import AppStoreSimulator
import Foundation
import Postgres
import TestSupport
import Testing

/// A run killed with SIGKILL never updates its own row; the next run marks it `interrupted` and its
/// row, and `report` on it, say what the killed run did: the results, corrections and flags under its id.
@Suite struct InterruptedRunRowTests {
    @Test func aKilledRunsRowIsRebuiltFromItsRowsByTheNextRun() throws {
        let world = SimulatorRunTests.world(users: 300)
        // About four seconds of work (8 lanes at 100 ms a request): long enough to be killed mid-run.
        let simulator = try SimulatorRunTests.started(world, SimulatorOptions(latency: .milliseconds(100)))
        defer { simulator.stop() }
        try TestDatabase.with { database in
            try SimulatorRunTests.seed(world, into: database)
            let environment = SimulatorRunTests.environment(database, simulator)
            let db = try database.connect()
            func count(_ sql: String) throws -> Int {
                try db.query(PostgresQuery(unsafeSQL: sql)).first!.decode("n")
            }

            let child = try ReceiptReconBinary.start(SimulatorRunTests.run, environment: environment)
            // Killed as soon as it has applied corrections, long before it could finish.
            let deadline = Date().addingTimeInterval(60)
            while try count("SELECT count(*) AS n FROM recon_corrections") < 10, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            child.signal(SIGKILL)
            _ = try child.wait(timeout: 60)
            let killed: Int64 = try db.query("SELECT id FROM recon_runs").first!.decode("id")
            try #require(try db.query("SELECT status FROM recon_runs").first!.decode("status") == "running")
            let corrections = try count("SELECT count(*) AS n FROM recon_corrections WHERE run_id = \(killed)")
            let receipts = try count("SELECT count(*) AS n FROM receipts")
            try #require(corrections >= 10, "the run was killed before it applied corrections")

            try db.waitUntilAdvisoryLocksAreFree()
            let next = try ReceiptReconBinary.run(SimulatorRunTests.run, environment: environment)
            #expect([0, 1].contains(next.status), "\(next.output)")
            #expect(next.stderr.contains("run.previous_interrupted"))

            let row = try db.query(
                """
                SELECT status, receipts_processed, users_processed, valid, misrouted, invalid, unverified, corrections,
                       revoked_users, flags
                FROM recon_runs WHERE id = \(killed)
                """
            ).first!
            #expect(try row.decode("status") == "interrupted")
            let fromRows: [(String, String)] = [
                ("receipts_processed", "SELECT count(*) AS n FROM recon_results WHERE run_id = \(killed)"),
                ("users_processed", "SELECT count(DISTINCT user_id) AS n FROM recon_results WHERE run_id = \(killed)"),
                ("corrections", "SELECT count(*) AS n FROM recon_corrections WHERE run_id = \(killed)"),
                (
                    "revoked_users",
                    "SELECT count(DISTINCT user_id) AS n FROM recon_corrections WHERE run_id = \(killed) AND action = 'revoke'"
                ),
                ("flags", "SELECT count(*) AS n FROM recon_flags WHERE run_id = \(killed)"),
            ]
            for (column, sql) in fromRows {
                #expect(try row.decode(column, as: Int.self) == (try count(sql)), "\(column)")
            }
            for outcome in ["valid", "misrouted", "invalid", "unverified"] {
                #expect(
                    try row.decode(outcome, as: Int.self)
                        == count(
                            "SELECT count(*) AS n FROM recon_results WHERE run_id = \(killed) AND outcome = '\(outcome)'"
                        ), "\(outcome)")
            }
            #expect(try row.decode("corrections", as: Int.self) == corrections)
            #expect(try row.decode("receipts_processed", as: Int.self) < receipts, "it was killed mid-run")

            let report = try ReceiptReconBinary.run(
                ["report", "--run", String(killed), "--json"], environment: ["DATABASE_URL": database.conninfo])
            #expect(report.status == 0, "\(report.output)")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
            #expect(summary["status"] as? String == "interrupted")
            #expect(summary["runID"] as? Int == Int(killed))
            var reported: [String: Int] = [:]
            for (action, reasons) in summary["corrections"] as? [String: [String: Int]] ?? [:] {
                for (reason, n) in reasons { reported["\(action) \(reason)"] = n }
            }
            var written: [String: Int] = [:]
            for row in try db.query(
                "SELECT action, reason, count(*) AS n FROM recon_corrections WHERE run_id = \(killed) GROUP BY 1, 2")
            {
                written["\(try row.decode("action", as: String.self)) \(try row.decode("reason", as: String.self))"] =
                    try row.decode("n")
            }
            #expect(reported == written)
            var flags: [String: Int] = [:]
            for row in try db.query("SELECT kind, count(*) AS n FROM recon_flags WHERE run_id = \(killed) GROUP BY 1") {
                flags[try row.decode("kind")] = try row.decode("n")
            }
            #expect(summary["flags"] as? [String: Int] ?? [:] == flags)
            let processed = try count("SELECT count(*) AS n FROM recon_results WHERE run_id = \(killed)")
            #expect(summary["receiptsProcessed"] as? Int == processed)

            let text = try ReceiptReconBinary.run(
                ["report", "--run", String(killed)], environment: ["DATABASE_URL": database.conninfo])
            #expect(text.stdout.contains("Corrections applied: \(corrections)"), "\(text.output)")
        }
    }
}
