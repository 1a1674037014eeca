import Foundation
import TestSupport
import Testing

/// The command line as cron and operators meet it: help, version, usage errors and exit codes.
@Suite struct CommandLineTests {
    static let commands = [
        "migrate", "mapping", "run", "verify-user", "export", "report", "revert", "demo", "inspect", "simulator",
    ]

    @Test func topLevelHelpListsEveryCommandAndExitCode() throws {
        let result = try ReceiptReconBinary.run(["--help"])
        #expect(result.status == 0)
        for command in Self.commands {
            #expect(result.stdout.contains("  \(command) "), "help lacks \(command)")
        }
        for code in [0, 1, 64, 65, 69, 70, 75, 78] {
            #expect(result.stdout.contains("\n  \(code) "), "help lacks exit code \(code)")
        }
        for variable in [
            "DATABASE_URL", "APPLE_SHARED_SECRET", "APPLE_BUNDLE_IDS", "APPLE_VERIFY_URL_PRODUCTION",
            "APPLE_VERIFY_URL_SANDBOX", "RECON_ENVIRONMENT", "RECON_HTTP_CLIENT",
        ] {
            #expect(result.stdout.contains(variable))
        }
    }

    /// Every command line that has a help of its own: the top level (`""`), each command, and the
    /// simulator's two.
    static let helpCommands = [""] + commands.filter { $0 != "simulator" } + ["simulator seed", "simulator serve"]

    /// The help is the operator's contract: compared whole, so any change to it is one a reviewer reads
    /// in `Expected/`. Every command has one, with its exit codes.
    @Test(arguments: helpCommands)
    func everyHelpIsItsExpectedTextWhole(command: String) throws {
        let result = try ReceiptReconBinary.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let expected = try #require(ExpectedHelp.byCommand[command], "no expected help for '\(command)'")
        #expect(result.stdout == expected)
        #expect(expected.contains("EXIT CODES:\n") && expected.contains("\n  64 "), "\(command) lists no exit codes")
    }

    @Test func runHelpDocumentsEveryContractOption() throws {
        let help = try ReceiptReconBinary.run(["run", "--help"]).stdout
        for option in [
            "--dry-run", "--as-of", "--rate", "--concurrency", "--timeout", "--max-attempts", "--older-than",
            "--limit", "--shard", "--sandbox-policy", "--max-unverified-ratio", "--max-revoke-ratio", "--json",
            "--metrics-file", "--database-url", "--shared-secret-file", "--bundle-id", "--production-url",
            "--sandbox-url", "--environment", "--http-client",
        ] {
            #expect(help.contains(option + " "), "run --help lacks \(option)")
        }
    }

    @Test func versionPrintsOneLine() throws {
        let result = try ReceiptReconBinary.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("receipt-recon "))
        #expect(result.stdout.split(separator: "\n").count == 1)
    }

    /// Each bad invocation exits 64 with one line that names what was wrong.
    @Test(
        arguments: [
            (["bogus"], "bogus"),
            (["run", "--rate", "abc"], "--rate"),
            (["run", "--rate", "0"], "--rate"),
            (["run", "--concurrency", "-3"], "--concurrency"),
            (["run", "--older-than", "20"], "--older-than"),
            (["run", "--shard", "2/2"], "--shard"),
            (["run", "--as-of", "yesterday"], "--as-of"),
            (["run", "--as-of", "2026-02-30"], "--as-of"),
            (["run", "--sandbox-policy", "ignore"], "--sandbox-policy"),
            (["run", "--max-revoke-ratio", "1.5"], "--max-revoke-ratio"),
            (["run", "--dry-run=yes"], "--dry-run"),
            (["run", "--frobnicate"], "--frobnicate"),
            (["run", "--rate"], "--rate"),
            (["run", "--rate", "5", "--rate", "6"], "--rate"),
            (["run", "--environment", "staging"], "--environment"),
            (["run", "--production-url", "ftp://apple"], "--production-url"),
            (["run", "--http-client", "wget"], "--http-client expects 'curl' or 'urlsession', got 'wget'"),
            (["verify-user", "u1", "--http-client", "URLSession"], "--http-client expects 'curl' or 'urlsession'"),
            (["verify-user"], "USER_ID"),
            (["export", "ledger", "--from", "2026-01-01", "--to", "2026-02-01"], "ledger"),
            (["export", "flags", "--from", "2026-02-01", "--to", "2026-01-01"], "reversed"),
            (["export", "flags", "--from", "2026-02-01", "--to", "2026-02-01"], "empty"),
            (["export", "flags", "--from", "01/02/2026", "--to", "2026-03-01"], "--from"),
            (["export", "flags", "--to", "2026-03-01"], "--from"),
            (["report", "--run", "x"], "--run"),
            (["report", "--json", "--html", "r.html"], "--html"),
            (["inspect"], "FILE"),
            (["simulator"], "seed"),
            (["simulator", "serve", "--port", "70000"], "--port"),
            (["-x"], "-x"),
        ] as [([String], String)])
    func usageErrorsExit64NamingTheProblem(arguments: [String], named: String) throws {
        let result = try ReceiptReconBinary.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.output)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(named), "\(result.stderr)")
        #expect(result.stderr.contains("--help"), "a hint to the help is missing: \(result.stderr)")
    }

    @Test func noArgumentsPrintsHelpOnStderrAndExits64() throws {
        let result = try ReceiptReconBinary.run([])
        #expect(result.status == 64)
        #expect(result.stderr.contains("USAGE: receipt-recon COMMAND"))
    }

    @Test func badEnvironmentConfigurationExits78() throws {
        let result = try ReceiptReconBinary.run(["run"], environment: ["RECON_ENVIRONMENT": "staging"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("RECON_ENVIRONMENT"))
        let missingSecret = try ReceiptReconBinary.run(["run", "--shared-secret-file", "/nonexistent/secret"])
        #expect(missingSecret.status == 78)
        #expect(missingSecret.stderr.contains("/nonexistent/secret"))
        let badClient = try ReceiptReconBinary.run(["run"], environment: ["RECON_HTTP_CLIENT": "wget"])
        #expect(badClient.status == 78)
        #expect(badClient.stderr.contains("RECON_HTTP_CLIENT must be 'curl' or 'urlsession', not 'wget'"))
    }
}
