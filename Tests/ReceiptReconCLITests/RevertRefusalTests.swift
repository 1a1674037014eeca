import Foundation
import Postgres
import TestSupport
import Testing

/// What `revert` refuses, and how a revert shows where operators and finance look: `report --list`,
/// `report --run`, the corrections export.
@Suite struct RevertRefusalTests {
    static func revert(_ database: TestDatabase, _ arguments: [String]) throws -> ReceiptReconBinary.Result {
        try RevertCommandTests.revert(database, arguments)
    }

    @Test func badFlagsAreUsageErrors() throws {
        for arguments in [["revert"], ["revert", "--run", "abc"], ["revert", "--run", "0"], ["revert", "7"]] {
            let result = try ReceiptReconBinary.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.output)")
            #expect(result.stderr.contains("receipt-recon revert --help"), "\(result.stderr)")
        }
        let help = try ReceiptReconBinary.run(["revert", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: receipt-recon revert --run ID [--dry-run] [--json]"), "\(help.stdout)")
        #expect(try ReceiptReconBinary.run(["--help"]).stdout.contains("revert"))
    }

    @Test func refusesAnUnknownRunADryRunAndARevertWithNothingWritten() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            try RevertCommandTests.seed(database, apple)
            let db = try database.connect()
            let unknown = try Self.revert(database, ["--run", "99", "--json"])
            #expect(unknown.status == 65, "\(unknown.output)")
            #expect(unknown.stderr.contains("there is no run 99 in recon_runs"))
            let object = try RevertCommandTests.object(unknown)
            #expect(object["status"] as? String == "failed" && object["exitCode"] as? Int == 65)
            #expect((object["reason"] as? String)?.contains("no run 99") == true)

            #expect(try RunCommandTests.run(database, apple, ["--dry-run"]).status == 0)  // run 1
            let dry = try Self.revert(database, ["--run", "1"])
            #expect(dry.status == 65, "\(dry.output)")
            #expect(dry.stderr.contains("run 1 was a dry run: it changed no entitlement"))

            #expect(try RunCommandTests.run(database, apple).status == 0)  // run 2
            #expect(try Self.revert(database, ["--run", "2"]).status == 0)  // run 3
            let twice = try Self.revert(database, ["--run", "3"])
            #expect(twice.status == 65, "\(twice.output)")
            #expect(twice.stderr.contains("run 3 is itself a revert (of run 2)"))
            let runs: Int = try db.query("SELECT count(*)::int AS n FROM recon_runs").first!.decode("n")
            #expect(runs == 3, "a refusal records no run")
        }
    }

    @Test func waitsForANightOfTheShardAndForTheRunItself() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            try RevertCommandTests.seed(database, apple)
            #expect(try RunCommandTests.run(database, apple).status == 0)  // run 1
            let db = try database.connect()
            let rows = try RevertCommandTests.rows(db)

            // A night of shard 0/1 is going: nothing is done, 75, and --json says skipped.
            let holder = try database.connect()
            #expect(try holder.tryAdvisoryLock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))
            let locked = try Self.revert(database, ["--run", "1", "--json"])
            #expect(locked.status == 75, "\(locked.output)")
            #expect(locked.stderr.contains("a nightly run of shard 0/1 is going"))
            let object = try RevertCommandTests.object(locked)
            #expect(object["status"] as? String == "skipped" && object["exitCode"] as? Int == 75)
            #expect(try holder.advisoryUnlock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))

            // verify-user run 2 is still going (its process holds its liveness lock).
            let going: Int64 = try db.query(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of, subject_user_id)
                VALUES ('user', 'running', false, now(), 'u-ok') RETURNING id
                """
            ).first!.decode("id")
            #expect(try holder.tryAdvisoryLock(AdvisoryLockKey(name: "receipt-recon:run:\(going)")))
            let running = try Self.revert(database, ["--run", String(going)])
            #expect(running.status == 75, "\(running.output)")
            #expect(running.stderr.contains("run \(going) is still going"))

            #expect(try RevertCommandTests.rows(db) == rows, "nothing was written")
            let runs: Int = try db.query("SELECT count(*)::int AS n FROM recon_runs").first!.decode("n")
            #expect(runs == 2)
        }
    }

    @Test func reportAndTheCorrectionsExportShowTheRevert() throws {
        try RevertCommandTests.afterANight { database, _, _ in
            let environment = ["DATABASE_URL": database.conninfo]
            #expect(try Self.revert(database, ["--run", "1"]).status == 0)  // run 2

            let list = try ReceiptReconBinary.run(["report", "--list"], environment: environment)
            #expect(list.status == 0, "\(list.output)")
            // Cells hold no space up to CORRECTIONS (the eighth), the exit code and the reason follow it.
            let newest = list.stdout.split(separator: "\n").dropFirst().first?.split(separator: " ").map(String.init)
            #expect(newest?[0] == "2" && newest?[1] == "revert" && newest?[7] == "7", "\(list.stdout)")
            #expect(newest?[8] == "0", "a revert that completed exits 0: \(list.stdout)")

            let report = try ReceiptReconBinary.run(["report", "--run", "2"], environment: environment)
            #expect(report.status == 0, "\(report.output)")
            #expect(report.stdout.contains("Run 2 (revert of run 1, shard 0/1) completed"), "\(report.stdout)")
            #expect(report.stdout.contains("Entitlements restored: 7; left alone (changed since): 0"))
            #expect(report.stdout.contains("Corrections applied: 7"))
            // The last complete night is still the night, not its undo.
            let last = try ReceiptReconBinary.run(["report", "--last", "--json"], environment: environment)
            #expect((try RevertCommandTests.object(last))["runID"] as? Int == 1)

            let export = try ReceiptReconBinary.run(
                ["export", "corrections", "--from", "2000-01-01", "--to", "2100-01-01"], environment: environment)
            #expect(export.status == 0, "\(export.output)")
            let rows = ExportDryRunTests.rows(export.stdout)
            #expect(rows.count == 14)
            let night = rows.filter { $0["run_id"] == "1" }
            let undo = rows.filter { $0["run_id"] == "2" }
            #expect(night.count == 7 && night.allSatisfy { $0["reverted_by_run_id"] == "2" }, "\(night)")
            #expect(undo.allSatisfy { $0["reason"] == "reverted" && $0["reverted_by_run_id"] == "" })
            #expect(Set(undo.compactMap { $0["reverts_correction_id"] }) == Set(night.compactMap { $0["id"] }))
        }
    }
}
