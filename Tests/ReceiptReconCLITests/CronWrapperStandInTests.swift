import Foundation
import TestSupport
import Testing

/// `cron/receipt-recon-nightly.sh` run by bash around a stand-in binary (a script that records what it
/// was given and exits with the code it is told): the verdict line for every exit code, the install
/// problems that need a human, and the env file read as data.
@Suite struct CronWrapperStandInTests {
    /// A scratch install: env file, log and metrics directories, lock file, and the stand-in binary.
    struct Install {
        let directory: URL
        var environment: [String: String]

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// What the stand-in was given, when it ran: its arguments and its environment.
        var received: (arguments: [String], environment: [String: String])? {
            guard let arguments = try? Data(contentsOf: directory.appendingPathComponent("received.args")),
                let environment = try? Data(contentsOf: directory.appendingPathComponent("received.env"))
            else { return nil }
            func fields(_ data: Data) -> [String] {
                data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
                    String(decoding: $0, as: UTF8.self)
                }
            }
            var variables: [String: String] = [:]
            for field in fields(environment) {
                guard let equals = field.firstIndex(of: "=") else { continue }
                variables[String(field[..<equals])] = String(field[field.index(after: equals)...])
            }
            return (fields(arguments), variables)
        }

        func writeEnvFile(_ text: String) throws {
            try text.write(toFile: path("env"), atomically: true, encoding: .utf8)
        }

        func wrapper(_ arguments: [String] = [], exit code: Int32 = 0) throws -> ChildProcess.Result {
            var environment = self.environment
            environment["STANDIN_EXIT"] = String(code)
            return try ChildProcess.run(
                "/bin/bash", [CronWrapperTests.wrapper] + arguments, environment: environment, timeout: 60)
        }
    }

    static let standIn = """
        #!/bin/bash
        # Records its arguments and environment NUL-separated, prints what it is told (the run's JSON), a
        # line on stderr, then exits as told.
        printf '%s\\0' "$@" > "$STANDIN_DIR/received.args"
        env -0 > "$STANDIN_DIR/received.env"
        if [ -n "${STANDIN_STDOUT:-}" ]; then printf '%s\\n' "$STANDIN_STDOUT"; fi
        echo "time=2026-11-29T03:15:00Z level=info event=stand-in" >&2
        exit "${STANDIN_EXIT:-0}"
        """

    static func install() throws -> Install {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wrapper-\(UUID().uuidString)")
        for sub in ["logs", "metrics"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let binary = directory.appendingPathComponent("receipt-recon")
        // Installed by a child process: a file this (multithreaded) process had open for writing can be
        // inherited by another test's fork and make exec fail with ETXTBSY.
        let source = directory.appendingPathComponent("stand-in.source")
        try standIn.write(to: source, atomically: true, encoding: .utf8)
        let installed = try ChildProcess.run("/usr/bin/install", ["-m", "0755", source.path, binary.path], timeout: 60)
        #expect(installed.status == 0, "\(installed.stderrText)")
        let install = Install(
            directory: directory,
            environment: [
                "PATH": "/usr/bin:/bin",
                "STANDIN_DIR": directory.path,
                "RECEIPT_RECON_ENV": directory.appendingPathComponent("env").path,
                "RECEIPT_RECON_BIN": binary.path,
                "RECEIPT_RECON_LOG_DIR": directory.appendingPathComponent("logs").path,
                "RECEIPT_RECON_LOCK_FILE": directory.appendingPathComponent("lock").path,
                "RECEIPT_RECON_METRICS_FILE": directory.appendingPathComponent("metrics/receipt_recon.prom").path,
            ])
        try install.writeEnvFile("DATABASE_URL=\"host=db.internal dbname=shop\"\n")
        return install
    }

    static func verdict(_ result: ChildProcess.Result) -> String {
        result.stdoutText.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test(arguments: [
        (Int32(0), "completed", "no"), (1, "some receipts stayed transiently unverified", "no, unless it repeats"),
        (64, "usage error", "YES: fix the command"), (69, "circuit breaker", "YES: rerun once Apple"),
        (70, "internal error", "YES: read the log and report it"),
        (75, "another run holds the lock", "no, unless it repeats"),
        (77, "permission", "YES: grant what the log names, see docs/integration.md"),
        (78, "configuration error", "YES: check the env file"), (99, "unexpected exit status", "YES"),
    ])
    func eachExitCodeGetsItsLine(code: Int32, meaning: String, human: String) throws {
        let install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        let result = try install.wrapper(["--shard", "0/1"], exit: code)
        #expect(result.status == code)
        let line = Self.verdict(result)
        #expect(line.contains("receipt-recon exit \(code): "), "\(line)")
        #expect(line.contains(meaning), "\(line)")
        #expect(line.contains("needs a human: \(human)"), "\(line)")
        let received = try #require(install.received)
        #expect(
            received.arguments == [
                "run", "--json", "--metrics-file", install.path("metrics/receipt_recon.prom"), "--shard", "0/1",
            ])
        let log = try FileManager.default.contentsOfDirectory(atPath: install.path("logs"))
        #expect(log.count == 1)
        #expect(try String(contentsOfFile: install.path("logs/\(log[0])"), encoding: .utf8).contains(line))
    }

    /// The line cron mails carries the run's reason, the top-level `reason` of its JSON (not a nested
    /// one), on one line; the JSON and the logs stay in the dated log.
    @Test(arguments: [
        (Int32(69), "breaker tripped: 31 of 100 users (0.31) would lose access, above --max-revoke-ratio 0.20"),
        (77, "permission denied for table entitlements: GRANT SELECT, INSERT, UPDATE ON entitlements TO recon_job"),
        (78, "APPLE_APP_APPLE_IDS has no Apple ID for com.example.app"),
    ])
    func theVerdictCarriesTheRunsReason(code: Int32, reason: String) throws {
        var install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        let escaped = reason.replacingOccurrences(of: "/", with: "\\/")
        install.environment["STANDIN_STDOUT"] =
            "{\"corrections\":{\"reason\":\"nested\"},\"exitCode\":\(code),\"flags\":[{\"reason\":\"x\"}],"
            + "\"reason\":\"\(escaped)\\nsecond line\",\"status\":\"failed\"}"
        let result = try install.wrapper(exit: code)
        #expect(result.status == code)
        let line = Self.verdict(result)
        #expect(line.contains("receipt-recon exit \(code): "), "\(line)")
        #expect(line.contains("; reason: \(reason) second line; needs a human: YES"), "\(line)")
        #expect(result.stdoutText.split(separator: "\n").count == 1, "one line: \(result.stdoutText)")
        let logs = try FileManager.default.contentsOfDirectory(atPath: install.path("logs"))
        let log = try String(contentsOfFile: install.path("logs/\(logs[0])"), encoding: .utf8)
        #expect(log.contains("\"status\":\"failed\""), "the JSON is in the log")
        #expect(log.contains("event=stand-in"), "the logs are in the log")
    }

    /// A night that succeeded, or printed no JSON, says no reason.
    @Test func noReasonWithoutOne() throws {
        var install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        install.environment["STANDIN_STDOUT"] = "{\"reason\":null,\"status\":\"completed\"}"
        #expect(!Self.verdict(try install.wrapper(exit: 0)).contains("reason"))
        install.environment["STANDIN_STDOUT"] = nil
        let usage = Self.verdict(try install.wrapper(exit: 64))
        #expect(usage.contains("receipt-recon exit 64: usage error") && !usage.contains("reason:"), "\(usage)")
    }

    /// Paths the job cannot use: the job never runs, a human is needed, and the code is neither 75
    /// (which the unit counts as success) nor one of the job's.
    @Test(arguments: ["metrics directory", "log directory", "lock file", "binary"])
    func anUnusableInstallPathNeedsAHuman(broken: String) throws {
        var install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        var expected: Int32 = 73
        switch broken {
        case "metrics directory":
            install.environment["RECEIPT_RECON_METRICS_FILE"] = install.path("missing/receipt_recon.prom")
        case "log directory":
            install.environment["RECEIPT_RECON_LOG_DIR"] = install.path("no-logs")
        case "lock file":
            // A directory where the lock file should be: it cannot be opened for writing, even by root.
            try FileManager.default.createDirectory(atPath: install.path("lock"), withIntermediateDirectories: true)
        default:
            install.environment["RECEIPT_RECON_BIN"] = install.path("not-installed")
            expected = 72
        }
        let result = try install.wrapper()
        #expect(result.status == expected, "\(result.stdoutText)\(result.stderrText)")
        let line = Self.verdict(result)
        #expect(line.contains("receipt-recon exit \(expected): "), "\(line)")
        #expect(line.contains(broken), "\(line)")
        #expect(line.contains("nothing was run"), "\(line)")
        #expect(line.contains("needs a human: YES"), "\(line)")
        #expect(install.received == nil, "the job must not run")
        let unit = try String(contentsOfFile: SystemdUnitTests.unitPath, encoding: .utf8)
        let success = unit.split(separator: "\n").first { $0.hasPrefix("SuccessExitStatus=") } ?? ""
        #expect(!success.split(whereSeparator: { $0 == "=" || $0 == " " }).contains(Substring(String(expected))))
    }

    @Test func theEnvFileIsReadAsDataWithSystemdsMeaning() throws {
        let install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        let marker = install.path("executed")
        try install.writeEnvFile(
            """
            # The form the docs used to show: an unquoted conninfo with spaces.
            DATABASE_URL=host=db.internal port=5432 dbname=shop user=recon\u{20}\u{20}
              ; another comment
            APPLE_SHARED_SECRET='s3cr$t "quoted" $(touch \(marker)) \\n'
            APPLE_BUNDLE_IDS = "com.example.app,com.example.\\"other\\" \\$HOME \\\\ `x`"
            RECON_ENVIRONMENT=production\r
            EMPTY=

            INJECTED=$(touch \(marker))
            BACKTICKS=`touch \(marker)`
            """)
        let result = try install.wrapper()
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        let received = try #require(install.received).environment
        #expect(received["DATABASE_URL"] == "host=db.internal port=5432 dbname=shop user=recon")
        #expect(received["APPLE_SHARED_SECRET"] == "s3cr$t \"quoted\" $(touch \(marker)) \\n")
        #expect(received["APPLE_BUNDLE_IDS"] == "com.example.app,com.example.\"other\" $HOME \\ `x`")
        #expect(received["RECON_ENVIRONMENT"] == "production")
        #expect(received["EMPTY"] == "")
        #expect(received["INJECTED"] == "$(touch \(marker))")
        #expect(received["BACKTICKS"] == "`touch \(marker)`")
        #expect(!FileManager.default.fileExists(atPath: marker), "the env file was executed")
    }

    @Test(arguments: [
        ("export DATABASE_URL=x", "not a variable name"), ("just words", "not KEY=VALUE"),
        ("SECRET='hunter2", "not closed"), ("SECRET=\"hunter2", "not closed"),
        ("SECRET='hunter2' trailing", "after the closing quote"), ("SECRET=hun\\ter2", "backslash outside quotes"),
        ("SECRET=\"hun\\ter2\"", "a backslash in double quotes"), ("# a comment \\", "comment line ends"),
    ])
    func aLineTheTwoReadersCouldTakeDifferentlyIsRefused(line: String, problem: String) throws {
        let install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        try install.writeEnvFile("RECON_ENVIRONMENT=production\n\n\(line)\n")
        let result = try install.wrapper()
        #expect(result.status == 78)
        let verdict = Self.verdict(result)
        #expect(verdict.contains("line 3: "), "\(verdict)")
        #expect(verdict.contains(problem), "\(verdict)")
        #expect(verdict.contains("needs a human: YES"), "\(verdict)")
        #expect(!(result.stdoutText + result.stderrText).contains("hunter2"), "a value reached the output")
        #expect(install.received == nil)
    }

    @Test func aMissingEnvFileNeedsAHumanAndAnEmptyNameMeansNone() throws {
        var install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        try FileManager.default.removeItem(atPath: install.path("env"))
        let missing = try install.wrapper()
        #expect(missing.status == 78)
        #expect(Self.verdict(missing).contains("env file \(install.path("env")) missing or unreadable"))
        #expect(install.received == nil)

        install.environment["RECEIPT_RECON_ENV"] = ""
        install.environment["DATABASE_URL"] = "host=from-systemd"
        let none = try install.wrapper()
        #expect(none.status == 0, "\(none.stdoutText)")
        #expect(install.received?.environment["DATABASE_URL"] == "host=from-systemd")
    }

    /// Shards on one host: each its own lock and metrics file, so neither blocks nor overwrites the other.
    @Test func eachShardGetsItsOwnLockAndMetricsFile() throws {
        var install = try Self.install()
        defer { try? FileManager.default.removeItem(at: install.directory) }
        install.environment["RECEIPT_RECON_LOCK_FILE"] = nil
        install.environment["RECEIPT_RECON_METRICS_FILE"] = nil
        install.environment["RECEIPT_RECON_LOCK_DIR"] = install.directory.path
        install.environment["RECEIPT_RECON_METRICS_DIR"] = install.path("metrics")
        let result = try install.wrapper(["--shard", "2/4"])
        #expect(result.status == 0, "\(result.stdoutText)")
        #expect(install.received?.arguments.contains(install.path("metrics/receipt_recon-shard-2-4.prom")) == true)
        #expect(FileManager.default.fileExists(atPath: install.path("receipt-recon-shard-2-4.lock")))
        let logs = try FileManager.default.contentsOfDirectory(atPath: install.path("logs"))
        #expect(logs.count == 1 && logs[0].hasSuffix("-shard-2-4.log"), "\(logs)")
    }
}
