/// One subcommand of `receipt-recon`: declared options, a validating initializer, and `run`.
///
/// `init` does every check that needs no I/O (flags, values, dates), so a usage error (64) is reported
/// before anything touches the database or the network.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError)
    func run(_ console: Console) throws -> ExitCode
}

extension Command {
    /// Commands that later issues build: they parse and validate their arguments like finished ones,
    /// then say so and exit 70, never pretending to have done the work.
    func notImplemented(_ console: Console) -> ExitCode {
        console.error("receipt-recon \(Self.spec.name): not implemented yet (see README.md, 'What is not built yet')")
        return .internalError
    }
}
