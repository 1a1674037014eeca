import AppStoreSimulator
import Foundation
import Postgres
import TestSupport
import Testing

/// How far a nightly run has got, where operators read it: `event=run.progress` log lines on stderr
/// under cron, systemd or Kubernetes (no terminal) and with `--json`; on a terminal, the redrawn line
/// with a real ETA. The runs are held back by `--rate` so that they last several progress intervals.
@Suite struct RunProgressTests {
    /// A run of the simulator's world at 40 requests a second: its receipts take several seconds to
    /// verify whatever the machine's speed, so a progress interval of half a second shows several lines.
    /// The revoke breaker is lifted: this world's revokes come early in key order, and this is about
    /// progress.
    static let slowRun = [
        "run", "--older-than", "0", "--as-of", SimulatorRunTests.asOf, "--rate", "40", "--concurrency", "4",
        "--max-revoke-ratio", "1",
    ]

    static func receiptCount(_ database: TestDatabase) throws -> Int {
        try database.connect().query("SELECT count(*) AS n FROM receipts").first!.decode("n")
    }

    /// `key=value` pairs of one event line (values here never hold spaces).
    static func fields(_ line: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return fields
    }

    @Test func offATerminalTheRunLogsItsProgressWhileStdoutHoldsOnlyTheJSONSummary() throws {
        try SimulatorRunTests.seededWorld(users: 120) { world, simulator, database in
            let receipts = try Self.receiptCount(database)
            var environment = SimulatorRunTests.environment(database, simulator)
            environment["RECON_PROGRESS_INTERVAL"] = "0.5"
            let result = try ReceiptReconBinary.run(Self.slowRun + ["--json"], environment: environment)
            #expect([0, 1].contains(result.status), "\(result.output)")

            // stdout: the one JSON object, nothing else.
            #expect(result.stdout.split(separator: "\n").count == 1, "\(result.stdout.prefix(400))")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(summary["receiptsProcessed"] as? Int == receipts)
            #expect(!result.stdout.contains("run.progress"))

            let lines = result.stderr.split(separator: "\n")
            let progress = lines.filter { $0.contains(" event=run.progress ") }.map(Self.fields)
            #expect(progress.count >= 3, "\(result.stderr.suffix(1500))")
            for line in progress {
                #expect(line["level"] == "info")
                #expect(line["shard"] == "0/1")
                // Of how many: every due receipt, known from the start.
                #expect(line["receipts_total"] == String(receipts), "\(line)")
                #expect(line["unverified"] != nil && line["receipts_per_second"] != nil)
            }
            let done = progress.compactMap { $0["receipts_done"].flatMap { Int($0) } }
            #expect(done.count == progress.count)
            #expect(done == done.sorted(), "receipts done went backwards: \(done)")
            #expect(done.contains { $0 < receipts }, "every line came after the run was done: \(done)")
            // A real estimate while work remained: seconds left, not zero and not unknown.
            let waiting = progress.filter { Int($0["receipts_done"] ?? "") ?? receipts < receipts }
            #expect(waiting.contains { (Int($0["eta_seconds"] ?? "") ?? 0) > 0 }, "\(waiting)")
            // Nothing is logged about progress once the run has said it finished.
            let finished = try #require(lines.lastIndex { $0.contains(" event=run.finished ") })
            #expect(!lines[finished...].contains { $0.contains("event=run.progress") })
        }
    }

    @Test func theProgressIntervalIsOneDocumentedSettingAndABadValueIsAConfigurationError() throws {
        let help = try ReceiptReconBinary.run(["run", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("RECON_PROGRESS_INTERVAL"))
        #expect(help.stdout.contains("event=run.progress"))
        let verifyUserHelp = try ReceiptReconBinary.run(["verify-user", "--help"])
        #expect(!verifyUserHelp.stdout.contains("RECON_PROGRESS_INTERVAL"), "verify-user shows no progress")

        for bad in ["0", "soon", "-5", "100000"] {
            let result = try ReceiptReconBinary.run(
                ["run"], environment: ["RECON_PROGRESS_INTERVAL": bad, "DATABASE_URL": "host=/nonexistent"])
            #expect(result.status == 78, "\(bad): \(result.output)")
            #expect(
                result.stderr.contains("RECON_PROGRESS_INTERVAL must be a number of seconds from 0.1 to 86400"),
                "\(result.stderr)")
        }
    }

    /// On a terminal the line is redrawn every second, and its ETA is the time left at the rate so far,
    /// counted against every due receipt (it was always 0m00s when the only total was what the walk had
    /// read so far, a page ahead of what was done).
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script(1) not installed"))
    func onATerminalTheProgressLineCountsAgainstEveryDueReceiptWithARealETA() throws {
        try SimulatorRunTests.seededWorld(users: 120) { world, simulator, database in
            let receipts = try Self.receiptCount(database)
            var environment = SimulatorRunTests.environment(database, simulator)
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            let command = ([ReceiptReconBinary.url.path] + Self.slowRun).joined(separator: " ")
            // script(1) runs the job on a pseudo-terminal, as an operator's shell would.
            let onTerminal = try ChildProcess.run(
                "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment, timeout: 180)
            let screen = onTerminal.stdoutText
            // Each redraw: "\r\e[K123/456 receipts, 40.0/s, ETA 0m08s, 0 unverified".
            let drawn = screen.components(separatedBy: "\r\u{1B}[K").filter { $0.contains(" receipts, ") }
            #expect(drawn.count >= 2, "\(screen.suffix(600))")
            var etas: [String] = []
            for line in drawn {
                let counts = try #require(line.split(separator: " ").first).split(separator: "/")
                #expect(counts.count == 2 && counts[1] == Substring(String(receipts)), "\(line)")
                if let eta = line.range(of: "ETA ").map({ line[$0.upperBound...].prefix { $0 != "," } }) {
                    etas.append(String(eta))
                }
            }
            #expect(etas.count == drawn.count)
            #expect(etas.contains { $0 != "0m00s" && $0 != "?" }, "\(etas)")
            #expect(!screen.contains("event=run.progress"), "a terminal gets the line, not log events")
            #expect(screen.contains("Run 1 (nightly, shard 0/1)"))
        }
    }
}
