import Foundation
import TestSupport
import Testing

/// `cron/receipt-recon.service`, `.timer` and the notify unit as systemd reads them: `systemd-analyze
/// verify` clean in a scratch root that holds the scripts where ExecStart names them, `systemd-analyze
/// security` rating the service's exposure 4.0 or lower, a failure that starts the notify unit, and a
/// start timeout longer than a night may last.
@Suite struct SystemdUnitTests {
    static let cron = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("cron")
    static let unitPath = cron.appendingPathComponent("receipt-recon.service").path
    static let analyze = "/usr/bin/systemd-analyze"

    /// A root directory with systemd's own units, ours, and the wrapper at ExecStart's path.
    static func scratchRoot(wrapperMode: mode_t = 0o755) throws -> URL {
        let files = FileManager.default
        let root = files.temporaryDirectory.appendingPathComponent("systemd-root-\(UUID().uuidString)")
        let systemUnits = ["/usr/lib/systemd/system", "/lib/systemd/system"].first {
            files.fileExists(atPath: $0 + "/sysinit.target")
        }
        let units = try #require(systemUnits, "systemd's units (Debian package systemd)")
        try files.createDirectory(at: root.appendingPathComponent("usr/lib/systemd"), withIntermediateDirectories: true)
        try files.copyItem(atPath: units, toPath: root.appendingPathComponent("usr/lib/systemd/system").path)
        let etc = root.appendingPathComponent("etc/systemd/system")
        try files.createDirectory(at: etc, withIntermediateDirectories: true)
        for unit in Self.units {
            try files.copyItem(at: cron.appendingPathComponent(unit), to: etc.appendingPathComponent(unit))
            // The script ExecStart names, from cron/ where the repository keeps it.
            let text = try String(contentsOf: cron.appendingPathComponent(unit), encoding: .utf8)
            guard
                let execStart = text.split(separator: "\n").first(where: { $0.hasPrefix("ExecStart=") })?
                    .dropFirst("ExecStart=".count).split(separator: " ").first
            else { continue }
            let script = root.appendingPathComponent(String(execStart.drop { $0 == "/" }))
            try files.createDirectory(at: script.deletingLastPathComponent(), withIntermediateDirectories: true)
            try files.copyItem(at: cron.appendingPathComponent(script.lastPathComponent), to: script)
            #expect(
                chmod(script.path, script.lastPathComponent == "receipt-recon-nightly.sh" ? wrapperMode : 0o755) == 0)
        }
        return root
    }

    /// Every unit the repository ships: the service, its timer, and the unit its OnFailure= starts.
    static let units = ["receipt-recon.service", "receipt-recon.timer", "receipt-recon-notify@.service"]

    static func verify(_ root: URL) throws -> ChildProcess.Result {
        try ChildProcess.run(
            analyze,
            [
                "verify", "--root=\(root.path)", "receipt-recon.service", "receipt-recon.timer",
                "receipt-recon-notify@receipt-recon.service.service",
            ],
            timeout: 120)
    }

    @Test func verifyIsClean() throws {
        let root = try Self.scratchRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try Self.verify(root)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdoutText.isEmpty && result.stderrText.isEmpty, "\(result.stdoutText)\(result.stderrText)")
    }

    /// The same check notices a unit that cannot start: the wrapper not executable.
    @Test func verifyNoticesAWrapperThatCannotRun() throws {
        let root = try Self.scratchRoot(wrapperMode: 0o644)
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try Self.verify(root)
        #expect(result.status != 0)
        #expect(result.stderrText.contains("is not executable"), "\(result.stderrText)")
    }

    @Test func exposureIsAtMostFour() throws {
        let result = try ChildProcess.run(Self.analyze, ["security", "--offline=true", Self.unitPath], timeout: 120)
        let text = result.stdoutText + result.stderrText
        let line = try #require(
            text.split(separator: "\n").first { $0.contains("Overall exposure level for receipt-recon.service:") },
            "\(text)")
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(score, "\(line)")
        #expect(exposure <= 4.0, "\(text)")
    }

    /// systemd counts only a night that ran, or was stopped by another run, as success: never the
    /// wrapper's own install problems (72, 73, 78) nor a failed job.
    @Test func onlyOneAndSeventyFiveCountAsSuccessBesideZero() throws {
        let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let lines = unit.split(separator: "\n").filter { $0.hasPrefix("SuccessExitStatus=") }
        #expect(lines == ["SuccessExitStatus=1 75"])
    }
}

extension SystemdUnitTests {
    /// `run`'s default --budget-hours in seconds, from the built binary's own help: the longest a night
    /// waits for Apple's request budget before it finishes.
    static func defaultBudgetSeconds() throws -> Double {
        let help = try ReceiptReconBinary.run(["run", "--help"]).stdout
        let option = try #require(help.range(of: "--budget-hours H"), "run --help lists --budget-hours")
        let defaultText = try #require(help[option.upperBound...].range(of: "(default: "))
        let hours = help[defaultText.upperBound...].prefix { $0 != ")" }
        return try #require(Double(hours), "\(hours)") * 3600
    }

    /// A unit's `KEY=` values.
    static func values(_ key: String, in unit: String = unitPath) throws -> [String] {
        try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// The start timeout, as systemd parses it, outlasts a night that waited out its whole budget, with
    /// time to finish: a budget-bound night is never killed mid-write.
    @Test func theStartTimeoutOutlastsTheDefaultBudget() throws {
        let timeout = try #require(try Self.values("TimeoutStartSec").first)
        let parsed = try ChildProcess.run(Self.analyze, ["timespan", timeout], timeout: 30)
        let microseconds = try #require(
            parsed.stdoutText.split(separator: "\n").first { $0.contains("μs:") }?.split(separator: " ").last
                .flatMap { Double($0) }, "\(parsed.stdoutText)")
        let budget = try Self.defaultBudgetSeconds()
        #expect(microseconds / 1_000_000 >= budget + 1800, "TimeoutStartSec=\(timeout), budget \(budget) s")
    }

    /// A failed night starts the notify unit, which mails the wrapper's verdict line: the exit code,
    /// its meaning and the run's reason.
    @Test func aFailedNightMailsItsVerdictLine() throws {
        #expect(try Self.values("OnFailure") == ["receipt-recon-notify@%n.service"])
        let notifyUnit = Self.cron.appendingPathComponent("receipt-recon-notify@.service").path
        let execStart = try #require(try Self.values("ExecStart", in: notifyUnit).first)
        #expect(execStart.hasSuffix("/receipt-recon-notify.sh %i"), "\(execStart)")
        let mailto = try #require(
            try Self.values("Environment", in: notifyUnit).first { $0.hasPrefix("RECEIPT_RECON_MAILTO=") })

        let verdict =
            "2026-11-29T03:16:02Z receipt-recon exit 69: database or Apple unavailable; reason: Apple unreachable "
            + "or refusing: 95% of answers were transient failures; needs a human: YES: rerun"
        for (journal, expected) in [
            (verdict, verdict),
            ("", "receipt-recon.service failed (systemd result: timeout, exit status 15)"),
        ] {
            let directory = try KubernetesCronJobTests.standIns([
                "systemctl": """
                #!/bin/sh
                case "$*" in
                  *InvocationID*) echo 5e1d2c;;
                  *Result*) echo timeout;;
                  *ExecMainStatus*) echo 15;;
                esac
                """,
                "journalctl":
                    "#!/bin/sh\necho \"$*\" > \"$STANDIN_DIR/journalctl-args\"\nprintf '%s\\n' 'starting' \"$JOURNAL\"\n",
                "sendmail": "#!/bin/sh\necho \"$*\" > \"$STANDIN_DIR/sendmail-args\"\ncat > \"$STANDIN_DIR/mail\"\n",
            ])
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try ChildProcess.run(
                "/bin/bash",
                [Self.cron.appendingPathComponent("receipt-recon-notify.sh").path, "receipt-recon.service"],
                environment: [
                    "PATH": directory.appendingPathComponent("bin").path + ":/usr/bin:/bin",
                    "STANDIN_DIR": directory.path, "JOURNAL": journal,
                    "RECEIPT_RECON_MAILTO": String(mailto.dropFirst("RECEIPT_RECON_MAILTO=".count)),
                    "RECEIPT_RECON_SENDMAIL": directory.appendingPathComponent("bin/sendmail").path,
                ], timeout: 60)
            #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
            #expect(result.stdoutText.hasPrefix("<3>"), "priority err in the journal: \(result.stdoutText)")
            let mail = try String(contentsOfFile: directory.path + "/mail", encoding: .utf8)
            #expect(mail.contains("To: ops@example.com"), "\(mail)")
            #expect(mail.contains("Subject: receipt-recon.service failed"), "\(mail)")
            #expect(mail.contains(expected), "\(mail)")
            let asked = try String(contentsOfFile: directory.path + "/journalctl-args", encoding: .utf8)
            #expect(asked.contains("_SYSTEMD_INVOCATION_ID=5e1d2c"), "the failed start's lines only: \(asked)")
        }
    }
}
