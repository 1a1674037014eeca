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
    /// Environment variables the command reads (shown under CONFIGURATION).
    public let environment: [String]
    /// The exit codes this command can end with.
    public let exitCodes: [ExitCode]

    /// The full `receipt-recon NAME --help` text.
    public var helpText: String {
        var lines = ["USAGE: receipt-recon \(usage)", "", summary]
        if !discussion.isEmpty { lines += ["", discussion] }
        if !options.isEmpty {
            lines += ["", "OPTIONS:"]
            let width = min(34, options.map { $0.usageText.count }.max() ?? 0)
            for option in options {
                var help = option.help
                if let defaultText = option.defaultText { help += " (default: \(defaultText))" }
                let head = option.usageText.padding(toLength: max(width, option.usageText.count), withPad: " ", startingAt: 0)
                lines.append("  \(head)  \(help)")
            }
            lines.append("  " + "--help".padding(toLength: width, withPad: " ", startingAt: 0) + "  show this help")
        }
        let variables = environment.compactMap { name in Configuration.variables.first { $0.name == name } }
        if !variables.isEmpty {
            lines += ["", "CONFIGURATION (environment; a flag of the same meaning overrides it):"]
            let width = variables.map(\.name.count).max() ?? 0
            for variable in variables {
                lines.append("  \(variable.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(variable.meaning)")
            }
        }
        lines += ["", "EXIT CODES:"]
        for code in exitCodes {
            lines.append("  \(String(code.rawValue).padding(toLength: 3, withPad: " ", startingAt: 0))  \(code.meaning)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    func padding(toLength length: Int, withPad pad: String, startingAt: Int) -> String {
        count >= length ? self : self + String(repeating: pad, count: length - count)
    }
}
