import Foundation
import TestSupport
import Testing

/// Each command's own help and exit codes, through the built binary: `simulator --help` is the
/// simulator's, and `report`, `export`, `simulator seed` and `simulator serve` list only the exit codes
/// they can return, in their own words rather than the run's, and return them.
@Suite struct CommandHelpTests {
    /// The `EXIT CODES:` section of a help text: code → meaning.
    static func exitCodes(_ help: String) -> [(code: Int, meaning: String)] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "EXIT CODES:") else { return [] }
        return lines[(start + 1)...].prefix { $0.hasPrefix("  ") }.compactMap { line in
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let code = Int(parts[0]) else { return nil }
            return (code, parts[1].trimmingCharacters(in: .whitespaces))
        }
    }

    static func help(_ command: String) throws -> String {
        let result = try ReceiptReconBinary.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0, "\(result.output)")
        return result.stdout
    }

    @Test func simulatorHelpIsTheSimulatorsOwn() throws {
        let help = try Self.help("simulator")
        #expect(help == Self.simulatorHelp, "\(help)")
        #expect(try ReceiptReconBinary.run(["simulator", "-h"]).stdout == Self.simulatorHelp)
        // A subcommand's help is still its own.
        #expect(try Self.help("simulator seed").hasPrefix("USAGE: receipt-recon simulator seed "))
        #expect(try Self.help("simulator serve").hasPrefix("USAGE: receipt-recon simulator serve "))
        let bare = try ReceiptReconBinary.run(["simulator"])
        #expect(bare.status == 64 && bare.stderr.contains("'simulator' needs 'seed' or 'serve'"), "\(bare.output)")
    }

    @Test(arguments: [
        ("report", [0, 64, 65, 69, 70, 77, 78]),
        ("export", [0, 64, 65, 69, 70, 77, 78]),
        ("simulator seed", [0, 64, 65, 69, 70, 77, 78]),
        ("simulator serve", [0, 64, 69, 70, 78]),
    ])
    func aCommandListsItsOwnExitCodesInItsOwnWords(command: String, codes: [Int]) throws {
        let listed = Self.exitCodes(try Self.help(command))
        #expect(listed.map(\.code) == codes, "\(listed)")
        let run = Dictionary(uniqueKeysWithValues: Self.exitCodes(try Self.help("run")).map { ($0.code, $0.meaning) })
        // What 0, 65, 69 and 78 mean differs from command to command; the run's words are not theirs.
        for (code, meaning) in listed where [0, 65, 69, 78].contains(code) {
            #expect(meaning != run[code], "\(command) explains \(code) as the run does: \(meaning)")
        }
        for runOnly in ["every selected receipt", "circuit breaker", "verify-user", "inspect", "revert"] {
            #expect(!listed.contains { $0.meaning.contains(runOnly) }, "\(command) lists '\(runOnly)'")
        }
    }

    /// The codes the help promises are the ones the commands return.
    @Test func theCommandsReturnTheCodesTheirHelpNames() throws {
        try TestDatabase.with { database in
            let environment = ["DATABASE_URL": database.conninfo]
            let report = try ReceiptReconBinary.run(["report", "--run", "99"], environment: environment)
            #expect(report.status == 65, "\(report.output)")
            let export = try ReceiptReconBinary.run(["export", "corrections", "--run", "99"], environment: environment)
            #expect(export.status == 65, "\(export.output)")
            let world = ["--users", "3", "--seed", "5", "--as-of", "2026-01-01T00:00:00Z"]
            let seeded = try ReceiptReconBinary.run(["simulator", "seed"] + world, environment: environment)
            #expect(seeded.status == 0, "\(seeded.output)")
            let again = try ReceiptReconBinary.run(["simulator", "seed"] + world, environment: environment)
            #expect(again.status == 65 && again.stderr.contains("not empty"), "\(again.output)")
        }
        let taken = try LoopbackListener { connection in close(connection) }
        defer { taken.stop() }
        let serve = try ReceiptReconBinary.run(
            ["simulator", "serve", "--port", String(taken.port), "--users", "3"], timeout: 60)
        #expect(serve.status == 69 && serve.stderr.contains("cannot listen"), "\(serve.output)")
        for (command, code) in [("report", 65), ("export", 65), ("simulator seed", 65), ("simulator serve", 69)] {
            #expect(Self.exitCodes(try Self.help(command)).contains { $0.code == code })
        }
    }
}

extension CommandHelpTests {
    /// `receipt-recon simulator --help`, whole.
    static let simulatorHelp = """
        USAGE: receipt-recon simulator seed|serve [options]

        The local App Store simulator: 'seed' a drifted database, 'serve' Apple's answers (verifyReceipt and, with --pki-dir, the App Store Server API).

        For staging rehearsals, tests and benchmarks. Give seed and serve the same world options (--users or --receipts, --seed, --as-of, --environment, --pki-dir): the same values give the same world, so a run against 'serve' must produce the corrections 'seed' expects.

        COMMANDS:
          seed   Seed products, receipts and entitlements that drifted from the simulated App Store in known ways.
          serve  Serve POST /production/verifyReceipt, POST /sandbox/verifyReceipt, GET /stats and, with --pki-dir, the App Store Server API on loopback.

        EXIT CODES:
          0    this help was printed
          64   no subcommand, or one other than seed and serve

        Run 'receipt-recon simulator seed --help' or 'receipt-recon simulator serve --help' for its options and exit codes.

        """
}
