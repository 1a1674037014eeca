import Foundation
import Postgres
import TestSupport
import Testing

/// `report --list` and what `report --last` chooses, through the built binary: real runs of every kind
/// (nightly, dry run, `verify-user`, another shard) against a loopback Apple, and rows for the ends a
/// run cannot be made to reach on demand (a breaker's abort, a run still going).
@Suite struct ReportListTests {
    static var version: String {
        get throws {
            let result = try ReceiptReconBinary.run(["--version"])
            return String(try #require(result.stdout.split(separator: " ").last).dropLast())
        }
    }

    /// A breaker's reason, longer than a list line shows.
    static let breakerReason =
        "circuit breaker: 35 of 100 receipts unverified (35.0%), above --max-unverified-ratio 0.10; "
        + "nothing taken away, nothing more written"

    /// Inserts a finished nightly run row with a summary, as `run` records one: exit 69 with the breaker's
    /// reason, or exit 1 with 3 receipts unverified for a partial night.
    static func insertRun(_ db: PostgresConnection, status: String, corrections: Int, dryRun: Bool = false) throws
        -> Int64
    {
        let partial = status == "partial"
        let id: Int64 = try db.query(
            """
            INSERT INTO recon_runs (kind, status, dry_run, as_of, finished_at, corrections, exit_code, abort_reason,
                                    unverified, options)
            VALUES ('nightly', \(status), \(dryRun), now(), now(), \(corrections), \(partial ? 1 : 69),
                    \(partial ? nil : Self.breakerReason), \(partial ? 3 : 0), '{"backend": "verify-receipt"}')
            RETURNING id
            """
        ).first!.decode("id")
        let summary = """
            {"runID":\(id),"kind":"nightly","status":"\(status)","exitCode":69,"dryRun":\(dryRun),\
            "asOf":"2026-01-01T03:00:00Z","shard":"0/1","startedAt":"2026-01-01T03:00:00Z","durationSeconds":5,\
            "usersSelected":1,"usersProcessed":1,"receiptsSelected":1,"receiptsProcessed":1,"outcomes":{},\
            "appleStatuses":{},"corrections":{},"flags":{},"revokedUsers":0,"appleRequests":1,"appleRetries":0,\
            "appleThrottled":0,"appleHops":0,"backend":"verify-receipt"}
            """
        try db.execute("UPDATE recon_runs SET summary = \(PostgresJSON(summary)) WHERE id = \(id)")
        return id
    }

    @Test func listsEveryRunNewestFirstAndLastSkipsDryRunsStoppedRunsAndSupport() throws {
        try RunCommandTests.drifted { apple, database in
            let db = try database.connect()
            let environment = apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
            let nightly = try RunCommandTests.run(database, apple)  // run 1: 6 corrections
            #expect(nightly.status == 0, "\(nightly.output)")
            let dry = try RunCommandTests.run(database, apple, ["--dry-run"])  // run 2: nothing left to correct
            #expect(dry.status == 0, "\(dry.output)")
            let support = try ReceiptReconBinary.run(
                ["verify-user", "u-ok", "--as-of", RunCommandTests.asOf], environment: environment)  // run 3
            #expect(support.status == 0, "\(support.output)")
            let shard = try RunCommandTests.run(database, apple, ["--shard", "1/2"])  // run 4
            #expect(shard.status == 0, "\(shard.output)")
            let aborted = try Self.insertRun(db, status: "aborted", corrections: 0)  // run 5
            try db.execute(
                "INSERT INTO recon_runs (kind, status, dry_run, as_of, shard) VALUES ('nightly', 'running', false, now(), '0/1')"
            )  // run 6, still going
            #expect(aborted == 5)

            let list = try ReceiptReconBinary.run(["report", "--list"], environment: environment)
            #expect(list.status == 0, "\(list.output)")
            let lines = list.stdout.split(separator: "\n").map {
                $0.split(separator: " ", omittingEmptySubsequences: true)
            }
            #expect(lines.count == 7, "\(list.stdout)")
            #expect(
                lines.first?.joined(separator: " ")
                    == "RUN KIND DRY RUN STATUS BACKEND SHARD STARTED (UTC) CORRECTIONS EXIT REASON")
            let byID = Dictionary(uniqueKeysWithValues: lines.dropFirst().map { (String($0[0]), $0.map(String.init)) })
            #expect(lines.dropFirst().map { String($0[0]) } == ["6", "5", "4", "3", "2", "1"], "newest first")
            // id, kind, dry run, status, backend, shard, started, corrections, exit code, reason
            #expect(Array(byID["1"]?[1...5] ?? []) == ["nightly", "no", "completed", "verify-receipt", "0/1"])
            #expect(byID["1"]?[7] == "6")
            #expect(Array(byID["1"]?.dropFirst(8) ?? []) == ["0", "-"], "a night that ran to the end has no reason")
            #expect(Array(byID["2"]?[1...3] ?? []) == ["nightly", "yes", "completed"])
            #expect(Array(byID["3"]?[1...5] ?? []) == ["user", "no", "completed", "verify-receipt", "user"])
            #expect(byID["4"]?[5] == "1/2")
            #expect(byID["5"]?[3] == "aborted" && byID["5"]?.dropFirst(8).first == "69")
            // The reason, cut at a word to stay on one line: the start says what happened.
            let shown = byID["5"].map { $0.dropFirst(9).joined(separator: " ") } ?? ""
            #expect(shown.hasPrefix("circuit breaker: 35 of 100 receipts unverified"), "\(list.stdout)")
            #expect(shown.hasSuffix("…") && shown.count <= 60, "\(shown)")
            #expect(Self.breakerReason.hasPrefix(String(shown.dropLast())))
            #expect(byID["6"]?[3] == "running" && byID["6"]?[4] == "-" && byID["6"]?[7] == "-")
            #expect(Array(byID["6"]?.dropFirst(8) ?? []) == ["-", "-"], "a run still going has no exit code yet")
            for line in lines.dropFirst() {
                #expect(ISO8601DateFormatter().date(from: String(line[6])) != nil, "\(line)")
            }

            let limited = try ReceiptReconBinary.run(["report", "--list", "--limit", "2"], environment: environment)
            #expect(limited.status == 0, "\(limited.output)")
            #expect(
                limited.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ")[0] } == ["6", "5"])

            let json = try ReceiptReconBinary.run(["report", "--list", "--json"], environment: environment)
            #expect(json.status == 0, "\(json.output)")
            let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(array.map { $0["runID"] as? Int } == [6, 5, 4, 3, 2, 1])
            let first = try #require(array.last)
            #expect(first["kind"] as? String == "nightly")
            #expect(first["dryRun"] as? Bool == false)
            #expect(first["status"] as? String == "completed")
            #expect(first["backend"] as? String == "verify-receipt")
            #expect(first["version"] as? String == (try Self.version))
            #expect(first["shard"] as? String == "0/1")
            #expect(first["corrections"] as? Int == 6)
            #expect(first["exitCode"] as? Int == 0)
            #expect(first["reason"] is NSNull)
            #expect(array[1]["exitCode"] as? Int == 69)
            #expect(array[1]["reason"] as? String == Self.breakerReason, "--json gives the whole reason")
            #expect((first["startedAt"] as? String).flatMap(ISO8601DateFormatter().date(from:)) != nil)
            let running = try #require(array.first)
            #expect(running["corrections"] is NSNull && running["backend"] is NSNull && running["finishedAt"] is NSNull)
            #expect(running["exitCode"] is NSNull && running["reason"] is NSNull)

            // --last (and no choice at all): the shard run 4, the newest complete real nightly run.
            for arguments in [["report", "--last"], ["report"]] {
                let last = try ReceiptReconBinary.run(arguments, environment: environment)
                #expect(last.status == 0, "\(last.output)")
                #expect(last.stdout.hasPrefix("Run 4 (nightly, shard 1/2) completed"), "\(last.stdout)")
                #expect(last.stdout.contains("This is shard 1/2 of 2: 'receipt-recon report --list' shows"))
            }
            let lastJSON = try ReceiptReconBinary.run(["report", "--last", "--json"], environment: environment)
            let object = try JSONSerialization.jsonObject(with: Data(lastJSON.stdout.utf8)) as? [String: Any]
            #expect(object?["runID"] as? Int == 4)

            // A partial night (some receipts unverified, exit 1) is complete: it went through every user.
            let partial = try Self.insertRun(db, status: "partial", corrections: 2)
            let afterPartial = try ReceiptReconBinary.run(["report", "--last", "--json"], environment: environment)
            let partialObject = try JSONSerialization.jsonObject(with: Data(afterPartial.stdout.utf8)) as? [String: Any]
            #expect(partialObject?["runID"] as? Int == Int(partial))
            let partialLine = try ReceiptReconBinary.run(
                ["report", "--list", "--limit", "1"], environment: environment)
            #expect(
                partialLine.stdout.contains("partial")
                    && partialLine.stdout.contains(" 1  3 receipts stayed unverified"),
                "exit 1 and why: \(partialLine.stdout)")
            // A dry run after it is not chosen; --run still reports it.
            let later = try Self.insertRun(db, status: "completed", corrections: 1, dryRun: true)
            let afterDry = try ReceiptReconBinary.run(["report", "--last", "--json"], environment: environment)
            #expect(
                (try JSONSerialization.jsonObject(with: Data(afterDry.stdout.utf8)) as? [String: Any])?["runID"] as? Int
                    == Int(partial))
            let explicit = try ReceiptReconBinary.run(["report", "--run", String(later)], environment: environment)
            #expect(explicit.status == 0 && explicit.stdout.contains("dry run"), "\(explicit.output)")
        }
    }

    @Test func anEmptyDatabaseListsNothingAndHasNoLastRun() throws {
        try TestDatabase.with { database in
            let environment = ["DATABASE_URL": database.conninfo]
            let list = try ReceiptReconBinary.run(["report", "--list"], environment: environment)
            #expect(list.status == 0 && list.stdout == "No run has been recorded yet.\n", "\(list.output)")
            let json = try ReceiptReconBinary.run(["report", "--list", "--json"], environment: environment)
            #expect(json.status == 0 && json.stdout == "[]\n", "\(json.output)")
            let last = try ReceiptReconBinary.run(["report", "--last"], environment: environment)
            #expect(last.status == 65, "\(last.output)")
            #expect(last.stderr.contains("no complete nightly run"), "\(last.stderr)")
            #expect(last.stderr.contains("report --list"), "the way out: \(last.stderr)")
            #expect(last.stdout.isEmpty)
        }
    }

    @Test(arguments: [
        (["report", "--list", "--run", "1"], "--list takes no --run"),
        (["report", "--list", "--last"], "--list takes no --run, --last"),
        (["report", "--list", "--html", "r.html"], "--list takes no"),
        (["report", "--limit", "5"], "--limit goes with --list"),
        (["report", "--list", "--limit", "0"], "--limit"),
        (["report", "--compare", "1", "2", "--list"], "--compare takes no"),
    ])
    func aMisusedListIsAUsageError(arguments: [String], message: String) throws {
        let result = try ReceiptReconBinary.run(arguments, environment: ["DATABASE_URL": "host=/nonexistent"])
        #expect(result.status == 64, "\(result.output)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func helpSaysWhatLastChoosesAndHowToList() throws {
        let help = try ReceiptReconBinary.run(["report", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("report --list [--limit N] [--json]"))
        #expect(help.stdout.contains("completed or partial"))
        #expect(help.stdout.contains("not a dry run"))
    }
}
