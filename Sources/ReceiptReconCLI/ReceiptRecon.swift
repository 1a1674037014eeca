import CommandLineOptions
import Foundation
import Reconciliation

/// The `receipt-recon` command line: parse, validate, dispatch, and map every error to an exit code.
public enum ReceiptRecon {
    public static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        MigrateCommand.self, RunCommand.self, VerifyUserCommand.self, ExportCommand.self, ReportCommand.self,
        RevertCommand.self, DemoCommand.self, InspectCommand.self, SimulatorSeedCommand.self,
        SimulatorServeCommand.self, MappingCommand.self,
    ]

    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let console = Console()
        var parsed: Parsed?
        do {
            return try dispatch(arguments, environment: environment, console: console, parsed: &parsed).rawValue
        } catch {
            let failure = CommandFailure(error)
            console.error("receipt-recon: \(failure.message)")
            // A command whose arguments were understood still owes stdout what it promised (`--json`).
            if let parsed,
                let output = parsed.command.failureOutput(
                    failure, arguments: parsed.arguments, environment: parsed.environment)
            {
                console.print(output)
            }
            return failure.exitCode.rawValue
        }
    }

    /// A command whose arguments were understood, and the environment it reads (`--env-file`'s beneath
    /// the process's once the file was read).
    typealias Parsed = (command: any Command.Type, arguments: ParsedArguments, environment: [String: String])

    /// - Parameter parsed: set once the command's arguments are parsed.
    static func dispatch(
        _ arguments: [String], environment processEnvironment: [String: String], console: Console,
        parsed: inout Parsed?
    ) throws -> ExitCode {
        guard let first = arguments.first else {
            console.error(topLevelHelp)
            return .usage
        }
        switch first {
        case "--help", "-h", "help":
            console.write(topLevelHelp)
            return .success
        case "--version", "-V":
            console.print("receipt-recon \(version)")
            return .success
        default:
            break
        }
        var name = first
        var rest = Array(arguments.dropFirst())
        if first == "simulator" {
            guard let sub = rest.first, ["seed", "serve"].contains(sub) else {
                if rest.first == "--help" || rest.first == "-h" {
                    console.write(SimulatorHelp.text)
                    return .success
                }
                throw CommandError.usage(
                    "'simulator' needs 'seed' or 'serve'"
                        + (rest.first.map { ", not '\($0)'" } ?? ""), command: "simulator")
            }
            name = "simulator \(sub)"
            rest.removeFirst()
        }
        guard let type = commands.first(where: { $0.spec.name == name }) else {
            let hint = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            throw CommandError.usage("\(hint); commands: \(commandNames.joined(separator: ", "))", command: nil)
        }
        let arguments = try type.spec.parse(rest)
        if arguments.wantsHelp {
            console.write(type.spec.helpText)
            return .success
        }
        parsed = (type, arguments, processEnvironment)
        let command: any Command
        do {
            let environment = try EnvFile.environment(arguments, over: processEnvironment)
            parsed = (type, arguments, environment)
            EnvFile.exportLibpqVariables(environment, process: processEnvironment)
            command = try type.init(arguments, environment: environment)
        } catch {
            type.initializationFailed(
                CommandFailure(error), arguments: arguments, environment: parsed?.environment ?? processEnvironment,
                console: console)
            throw error
        }
        return try command.run(console)
    }

    static var commandNames: [String] {
        [
            "migrate", "mapping", "run", "verify-user", "export", "report", "revert", "demo", "inspect", "simulator",
        ]
    }

    static var topLevelHelp: String {
        var lines = [
            "receipt-recon \(version): re-verifies stored App Store receipts with Apple's verifyReceipt and",
            "corrects the entitlements that drifted from what was really bought, renewed or refunded.",
            "",
            "USAGE: receipt-recon COMMAND [options]",
            "",
        ]
        let summaries: [(String, String)] = [
            ("migrate", MigrateCommand.spec.summary),
            ("mapping", MappingCommand.spec.summary),
            ("run", RunCommand.spec.summary),
            ("verify-user", VerifyUserCommand.spec.summary),
            ("export", ExportCommand.spec.summary),
            ("report", ReportCommand.spec.summary),
            ("revert", RevertCommand.spec.summary),
            ("demo", DemoCommand.spec.summary),
            ("inspect", InspectCommand.spec.summary),
            ("simulator", SimulatorHelp.summary),
        ]
        lines += HelpText.Section("COMMANDS:", rows: summaries, columnWidth: 12).lines
        let variables = Configuration.variables.map { ($0.name, $0.meaning) }
        lines +=
            [""]
            + HelpText.Section(
                "CONFIGURATION (environment; a flag of the same meaning overrides it):",
                rows: variables, columnWidth: 28
            ).lines
        lines += [""] + ExitCode.helpSection(ExitCode.allCases).lines
        lines += ["", "Run 'receipt-recon COMMAND --help' for a command's options. --version prints the version."]
        return lines.joined(separator: "\n") + "\n"
    }
}
