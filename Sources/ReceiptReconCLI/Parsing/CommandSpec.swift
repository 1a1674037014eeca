import CommandLineOptions
import Reconciliation

/// What `--help` shows for a command, and the options its parser accepts.
public struct CommandSpec: Sendable {
    public let name: String
    /// The usage line after `receipt-recon`, e.g. `run [options]`.
    public let usage: String
    /// One line for the top-level command list.
    public let summary: String
    /// A paragraph or two for the command's own help.
    public let discussion: String
    public let options: [OptionSpec]
    /// The command's own options and those every command takes (`--env-file`).
    public var acceptedOptions: [OptionSpec] { options + [EnvFile.option] }
    /// Environment variables the command reads (shown under CONFIGURATION).
    public let environment: [String]
    /// The exit codes this command can end with.
    public let exitCodes: [ExitCode]
    /// This command's own meaning of its exit codes; a code without one is shown with the run's meaning
    /// (`ExitCode.meaning`), which is what `run` and `verify-user` mean by it.
    public var exitMeanings: [ExitCode: String] = [:]

    /// Splits the arguments after the command name against `options`.
    /// - Throws: a usage error (64) naming the bad argument.
    func parse(_ arguments: [String]) throws(CommandError) -> ParsedArguments {
        do throws(OptionError) {
            return try ParsedArguments(
                program: "receipt-recon", command: name, arguments: arguments, options: acceptedOptions)
        } catch {
            throw CommandError(usage: error)
        }
    }

    /// The full `receipt-recon NAME --help` text.
    public var helpText: String {
        var sections: [HelpText.Section] = []
        let variables = environment.compactMap { name in Configuration.variables.first { $0.name == name } }
        if !variables.isEmpty {
            sections.append(
                HelpText.Section(
                    "CONFIGURATION (environment; a flag of the same meaning overrides it):",
                    rows: variables.map { ($0.name, $0.meaning) }))
        }
        sections.append(ExitCode.helpSection(exitCodes, meanings: exitMeanings))
        return HelpText(
            usage: "receipt-recon \(usage)", paragraphs: [summary, discussion], options: acceptedOptions,
            sections: sections
        ).text
    }
}

extension ExitCode {
    /// `EXIT CODES:` with each code and its meaning: the command's own where it has one, else the run's.
    static func helpSection(_ codes: [ExitCode], meanings: [ExitCode: String] = [:]) -> HelpText.Section {
        HelpText.Section(
            "EXIT CODES:", rows: codes.map { (String($0.rawValue), meanings[$0] ?? $0.meaning) }, columnWidth: 3)
    }
}
