/// The arguments of one program or command after syntax checks: options by name and positionals in
/// order. Values are still text here; `OptionReader` and `ValueParsers` convert and validate them.
public struct ParsedArguments: Sendable {
    /// The executable, e.g. `receipt-recon`.
    public let program: String
    /// The subcommand, e.g. `run` or `simulator seed`; nil for a program without subcommands.
    public let command: String?
    public private(set) var values: [String: [String]] = [:]
    public private(set) var positionals: [String] = []
    public private(set) var wantsHelp = false

    /// Splits `arguments` (everything after the program, or after the command name) against `options`.
    /// Accepts `--name value`, `--name=value`, `--` to end options, and `-` as a positional (stdin).
    /// `--help` and `-h` set `wantsHelp` wherever they appear; the other arguments are still checked.
    /// - Throws: an `OptionError` for an unknown option, a missing value, a value given to a flag, or an
    ///   option repeated that may appear only once.
    public init(
        program: String,
        command: String? = nil,
        arguments: [String],
        options: [OptionSpec]
    ) throws(OptionError) {
        self.program = program
        self.command = command
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let forCommand = command.map { " for '\($0)'" } ?? ""
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw usageError("unknown option '\(argument)'\(forCommand); options are spelled --name")
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = byName[name] else {
                throw usageError("unknown option '--\(name)'\(forCommand)")
            }
            var value: String
            if spec.takesValue {
                if let inlineValue {
                    value = inlineValue
                } else {
                    // A value that starts with `--` must be given as `--name=value`: taking the next
                    // option as the value would hide a forgotten one.
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw usageError("option '\(spec.usageText)' needs a value")
                    }
                    value = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else {
                    throw usageError("option '--\(name)' is a flag and takes no value")
                }
                value = ""
            }
            if case .repeatable = spec.arity {
            } else if values[name] != nil {
                throw usageError("option '--\(name)' given more than once")
            }
            values[name, default: []].append(value)
        }
    }

    /// `program command`: what to run with `--help` to see the valid options.
    public var invocation: String { command.map { "\(program) \($0)" } ?? program }

    /// A usage error for this command line; its description points at `invocation --help`.
    public func usageError(_ message: String) -> OptionError {
        OptionError(message, invocation: invocation)
    }

    /// For a program that takes options only, or only the `taken` positional arguments it already read.
    /// - Throws: an `OptionError` naming the first positional argument beyond them.
    public func expectNoPositionals(after taken: Int = 0) throws(OptionError) {
        if positionals.count > taken { throw usageError("unexpected argument '\(positionals[taken])'") }
    }

    public func has(_ name: String) -> Bool { values[name] != nil }

    public func value(_ name: String) -> String? { values[name]?.last }

    public func all(_ name: String) -> [String] { values[name] ?? [] }
}
