import CommandLineOptions
import Reconciliation

/// One subcommand of `receipt-recon`: declared options, a validating initializer, and `run`.
///
/// `init` does every check that needs no I/O (flags, values, dates), so a usage error (64) is reported
/// before anything touches the database or the network.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError)
    func run(_ console: Console) throws -> ExitCode
    /// What stdout gets when the command, given `arguments`, ends with `failure`; nil for nothing.
    static func failureOutput(_ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String])
        -> String?
    /// Called when `init` refused `arguments`, before the error is reported (`run` writes its metrics file).
    static func initializationFailed(
        _ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String], console: Console)
}

extension Command {
    static func failureOutput(_ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String])
        -> String?
    {
        nil
    }

    static func initializationFailed(
        _ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String], console: Console
    ) {}
}
