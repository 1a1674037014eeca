/// A command line the parser refused. The message names the bad option or argument, and the
/// description adds the way out: the `--help` of the program and command as they were typed.
public struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// The program and command as typed, e.g. `receipt-recon run` or `receipt-recon-bench`.
    public let invocation: String

    public init(_ message: String, invocation: String) {
        self.message = message
        self.invocation = invocation
    }

    /// `message (see 'invocation --help')`: one line, fit for stderr.
    public var description: String { "\(message) (see '\(invocation) --help')" }
}
