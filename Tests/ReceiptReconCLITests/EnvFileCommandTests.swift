import Foundation
import TestSupport
import Testing

/// `--env-file PATH` through the built binary: every command reads the nightly wrapper's env file (the
/// same format, as data), beneath the environment and the flags; a file it cannot use is 78 naming the
/// file and the line, never a value.
@Suite struct EnvFileCommandTests {
    static func write(_ text: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("env-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("env")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A secret no output may show: shell syntax inside, which a file read as shell would have run.
    static let secret = "s3cr3t-'$(touch /tmp/env-file-ran)'-\\-end"

    /// The wrapper's own kind of file: quoted values with spaces and escapes, comments, a blank line.
    static func envFile(_ database: TestDatabase, _ apple: ScriptedAppleServer) throws -> URL {
        try write(
            """
            # the night's settings, as cron/env.example writes them
            DATABASE_URL="\(database.conninfo.replacingOccurrences(of: "\"", with: "\\\""))"
            APPLE_SHARED_SECRET="\(secret.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "$", with: "\\$"))"

            APPLE_VERIFY_URL_PRODUCTION='\(apple.productionURL.absoluteString)'
              ; systemd's comment
            APPLE_VERIFY_URL_SANDBOX = \(apple.sandboxURL.absoluteString)
            """)
    }

    @Test func aRunAndTheCommandsAfterItReadTheNightsFile() throws {
        try RunCommandTests.drifted { apple, database in
            let file = try Self.envFile(database, apple)
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let run = try ReceiptReconBinary.run(
                [
                    "run", "--older-than", "0", "--as-of", RunCommandTests.asOf, "--rate", "200", "--max-attempts", "1",
                    "--json", "--env-file", file.path,
                ])
            #expect(run.status == 0, "\(run.output)")
            #expect(!apple.received.isEmpty, "the run asked the file's Apple")
            #expect(!run.output.contains(Self.secret) && !run.output.contains("s3cr3t"))
            #expect(!FileManager.default.fileExists(atPath: "/tmp/env-file-ran"), "the file was run as shell")

            let report = try ReceiptReconBinary.run(["report", "--last", "--json", "--env-file", file.path])
            #expect(report.status == 0, "\(report.output)")
            #expect(report.stdout.contains("\"runID\":1"), "\(report.stdout)")
            let export = try ReceiptReconBinary.run(["export", "corrections", "--run", "1", "--env-file", file.path])
            #expect(export.status == 0, "\(export.output)")
            #expect(export.stdout.split(whereSeparator: \.isNewline).count > 1, "the corrections: \(export.stdout)")
            let check = try ReceiptReconBinary.run(["migrate", "--check", "--env-file", file.path])
            #expect(check.status == 0, "\(check.output)")
        }
    }

    /// The environment and then the flags override the file: a file naming a database that does not
    /// exist is overridden by DATABASE_URL, and both by --database-url.
    @Test func theEnvironmentAndTheFlagsOverrideTheFile() throws {
        try TestDatabase.with { database in
            let wrong = database.conninfo + " dbname=no_such_database_\(UUID().uuidString.prefix(8).lowercased())"
            let file = try Self.write("DATABASE_URL=\"\(wrong)\"\n")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let fromFile = try ReceiptReconBinary.run(["report", "--list", "--env-file", file.path])
            #expect(fromFile.status != 0, "the file's database does not exist: \(fromFile.output)")

            let environment = try ReceiptReconBinary.run(
                ["report", "--list", "--env-file", file.path], environment: ["DATABASE_URL": database.conninfo])
            #expect(environment.status == 0, "\(environment.output)")
            let flag = try ReceiptReconBinary.run(
                ["report", "--list", "--env-file", file.path, "--database-url", database.conninfo],
                environment: ["DATABASE_URL": wrong])
            #expect(flag.status == 0, "\(flag.output)")
        }
    }

    /// Every command takes the option: a missing file is the same configuration error everywhere,
    /// naming the file, before anything else is tried.
    @Test(arguments: [
        ["migrate"], ["migrate", "--check"], ["run"], ["verify-user", "u-1"],
        ["export", "transactions", "--from", "2026-11-01T00:00:00Z", "--to", "2026-12-01T00:00:00Z"],
        ["report", "--last"], ["report", "--list"], ["revert", "--run", "1", "--dry-run"], ["demo"],
        ["inspect", "-"], ["simulator", "seed", "--users", "10"], ["simulator", "serve", "--port", "0"],
    ])
    func everyCommandTakesTheOption(command: [String]) throws {
        let missing = "/nonexistent/receipt-recon-\(UUID().uuidString)/env"
        let result = try ReceiptReconBinary.run(command + ["--env-file", missing], stdin: Data(), timeout: 60)
        #expect(result.status == 78, "\(command): \(result.output)")
        #expect(result.stderr.contains("env file \(missing): No such file or directory"), "\(result.stderr)")
        let help = try ReceiptReconBinary.run(command.prefix { !$0.hasPrefix("-") && $0 != "u-1" } + ["--help"])
        #expect(help.stdout.contains("--env-file PATH"), "\(command) --help")
    }

    /// A line the wrapper would refuse: 78, the file and the line named, the value nowhere; and the run
    /// still owes its JSON object and its metrics file.
    @Test func aLineTheWrapperWouldRefuseIs78NamingTheLineNotTheValue() throws {
        let file = try Self.write("RECON_ENVIRONMENT=production\n\nAPPLE_SHARED_SECRET='hunter2-secret\n")
        let directory = file.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let metrics = directory.appendingPathComponent("receipt_recon.prom").path
        let result = try ReceiptReconBinary.run(
            ["run", "--json", "--metrics-file", metrics, "--env-file", file.path])
        #expect(result.status == 78)
        #expect(
            result.stderr.contains("env file \(file.path) line 3: a ' quote is not closed on its line"),
            "\(result.stderr)")
        #expect(!result.output.contains("hunter2"))
        #expect(result.stdout.contains("\"exitCode\":78"), "\(result.stdout)")
        let written = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(
            written.split(separator: "\n").contains {
                $0.hasPrefix("receipt_recon_last_run_exit_code{") && $0.hasSuffix(" 78")
            }, "\(written)")
    }

    /// libpq's own variables in the file reach libpq, as the wrapper's `export` gives them: a password
    /// file named by PGPASSFILE, here a conninfo without the database that PGDATABASE names.
    @Test func libpqVariablesInTheFileReachLibpq() throws {
        try TestDatabase.with { database in
            let withoutName = database.conninfo.split(separator: " ").filter { !$0.hasPrefix("dbname=") }
                .joined(separator: " ")
            let file = try Self.write("DATABASE_URL=\"\(withoutName)\"\nPGDATABASE=\(database.name)\n")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let result = try ReceiptReconBinary.run(["report", "--list", "--env-file", file.path])
            #expect(result.status == 0, "\(result.output)")
        }
    }
}
