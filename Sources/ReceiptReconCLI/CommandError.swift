import CommandLineOptions
import Reconciliation

/// An error that ends a command with a specific exit code and a one-line message for stderr.
///
/// Messages name the problem and the way out; they never contain a secret, a password or receipt data.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    public let exitCode: ExitCode
    public let message: String

    public init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// A usage error (exit 64) naming the bad argument, with a pointer to the command's help.
    public static func usage(_ message: String, command: String?) -> CommandError {
        let help = command.map { "receipt-recon \($0) --help" } ?? "receipt-recon --help"
        return CommandError(.usage, "\(message) (see '\(help)')")
    }

    /// The parser's refusal as a usage error (64); its text already points at the command's help.
    public init(usage error: OptionError) {
        self.init(.usage, error.description)
    }

    public static func configuration(_ message: String) -> CommandError {
        CommandError(.configuration, message)
    }

    public var description: String { message }
}
