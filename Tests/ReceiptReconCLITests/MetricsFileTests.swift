import Foundation
import Postgres
import TestSupport
import Testing

/// `run --metrics-file` through the built binary, night after night into one file as the wrapper
/// writes it: every end past the options writes it (`promtool check metrics` clean each time), the
/// last success survives failed nights and dry runs, and a run that never started says so.
@Suite struct MetricsFileTests {
    struct Night {
        let families: [PrometheusClientParser.Family]
        let text: String

        func value(_ name: String, _ labels: [String: String] = [:], dryRun: Bool = false) -> Double? {
            var all = labels.merging(["shard": "0/1"]) { new, _ in new }
            if name != "last_success_timestamp_seconds" { all["dry_run"] = dryRun ? "true" : "false" }
            return PrometheusClientParser.value(families, "receipt_recon_" + name, all)
        }

        var lastSuccess: Double? { value("last_success_timestamp_seconds") }
        var exitCode: Double? { value("last_run_exit_code") }

        /// The status whose sample is 1.
        var status: String? {
            families.flatMap(\.samples).first {
                $0.name == "receipt_recon_last_run_status" && $0.labels["dry_run"] == "false" && $0.value == 1
            }?.labels["status"]
        }
    }

    /// Reads the file the run left, after checking it as Prometheus would.
    static func read(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Night {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lint = try Promtool.checkMetrics(text)
        #expect(
            lint.status == 0 && lint.output.isEmpty, "promtool check metrics:\n\(lint.output)\n\(text)",
            sourceLocation: sourceLocation)
        return Night(families: try PrometheusClientParser.parse(text), text: text)
    }

    static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).prom").path
    }

    @Test func everyEndWritesTheFileAndTheLastSuccessSurvivesFailedNights() throws {
        let apple = try ScriptedAppleServer()
        let path = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TestDatabase.with { database in
            try RunCommandTests.seed(database, apple)
            let metrics = ["--metrics-file", path]

            // A completed night.
            let completed = try RunCommandTests.run(database, apple, metrics)
            #expect(completed.status == 0, "\(completed.output)")
            let night = try Self.read(path)
            #expect(night.exitCode == 0)
            #expect(night.status == "completed")
            let success = try #require(night.lastSuccess)
            #expect(night.value("last_run_end_timestamp_seconds") == success)
            #expect(night.value("build_info", ["version": "0.1.0", "backend": "verify-receipt"]) == 1)
            #expect(night.value("last_run_receipts", ["outcome": "valid"]) ?? 0 > 0)

            // A dry run into the same file: its own series, the night's untouched.
            let dry = try RunCommandTests.run(database, apple, metrics + ["--dry-run"])
            #expect(dry.status == 0, "\(dry.output)")
            let afterDry = try Self.read(path)
            #expect(afterDry.lastSuccess == success, "a dry run never refreshes the last success")
            #expect(afterDry.value("last_run_id") == night.value("last_run_id"))
            #expect(afterDry.value("last_run_exit_code", dryRun: true) == 0)
            #expect(afterDry.value("last_run_id", dryRun: true) ?? 0 > night.value("last_run_id") ?? 0)

            // Another run holds the shard's lock: skipped, 75.
            let holder = try database.connect()
            #expect(try holder.tryAdvisoryLock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))
            let held = try RunCommandTests.run(database, apple, metrics)
            #expect(held.status == 75, "\(held.output)")
            let skipped = try Self.read(path)
            #expect(skipped.exitCode == 75)
            #expect(skipped.status == "skipped")
            #expect(skipped.lastSuccess == success)
            #expect(skipped.value("last_run_id") == nil, "no run row exists")
            #expect(skipped.value("last_run_end_timestamp_seconds") ?? 0 > success)

            // The file lost (a fresh container): the database still knows the last success.
            try FileManager.default.removeItem(atPath: path)
            _ = try RunCommandTests.run(database, apple, metrics)
            #expect(try Self.read(path).lastSuccess.map { abs($0 - success) < 1 } == true)
            #expect(try holder.advisoryUnlock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))
        }

        // The database unreachable: the run never starts, 69.
        let port = try LoopbackSocket.freePort()
        let down = try ReceiptReconBinary.run(
            ["run", "--metrics-file", path],
            environment: ["DATABASE_URL": "host=127.0.0.1 port=\(port) dbname=recon user=recon connect_timeout=5"])
        #expect(down.status == 69, "\(down.output)")
        let unreachable = try Self.read(path)
        #expect(unreachable.exitCode == 69)
        #expect(unreachable.status == "failed")
        let success = try #require(unreachable.lastSuccess)
        #expect(unreachable.value("last_run_end_timestamp_seconds") ?? 0 > success)

        // A bad setting: 78 before anything is opened, the backend unresolved.
        let misconfigured = try ReceiptReconBinary.run(
            ["run", "--metrics-file", path], environment: ["RECON_ENVIRONMENT": "staging"])
        #expect(misconfigured.status == 78, "\(misconfigured.output)")
        let configuration = try Self.read(path)
        #expect(configuration.exitCode == 78)
        #expect(configuration.status == "failed")
        #expect(configuration.lastSuccess == success)
        #expect(configuration.value("build_info", ["version": "0.1.0", "backend": "unknown"]) == 1)

        // A usage error is not past the options: the file is left as it was.
        let usage = try ReceiptReconBinary.run(["run", "--metrics-file", path, "--rate", "fast"])
        #expect(usage.status == 64)
        #expect(try Self.read(path).text == configuration.text)
    }

    @Test func aBreakerThatTripsWritesItsFiguresAndKeepsTheLastSuccess() throws {
        let apple = try ScriptedAppleServer()
        let path = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TestDatabase.with { database in
            try RunCommandTests.seedMany(database, users: 150)
            let db = try database.connect()
            // A night that went well, before Apple's bad one.
            try db.execute(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of, started_at, finished_at, shard)
                VALUES ('nightly', 'completed', false, now(), '2026-11-01T03:00:00Z',
                        '2026-11-01T03:20:00Z', '0/1')
                """)
            apple.answerEverythingElse(with: .status(21009))
            let result = try RunCommandTests.run(database, apple, ["--concurrency", "16", "--metrics-file", path])
            #expect(result.status == 69, "\(result.output)")
            let night = try Self.read(path)
            #expect(night.exitCode == 69)
            #expect(night.status == "aborted")
            // Nothing is written before the breaker can judge: the figures are what the run selected and
            // asked, its outcomes what its rows hold (none).
            #expect(night.value("last_run_receipts_selected") ?? 0 >= 100)
            #expect(night.value("last_run_apple_requests") ?? 0 >= 100)
            #expect(night.value("last_run_id") != nil)
            #expect(night.lastSuccess == RunCommandTests.instant("2026-11-01T03:20:00Z").timeIntervalSince1970)
        }
    }
}
