import Foundation

/// Typed reads of parsed options: nil when the option is absent, `Failure` when its value is malformed.
///
/// `Failure` lets a program keep its own error type where it has one (the job's usage errors carry
/// their exit code); `OptionReader(arguments)` reads with `OptionError` itself.
public struct OptionReader<Failure: Error>: Sendable {
    public let arguments: ParsedArguments
    private let failure: @Sendable (OptionError) -> Failure

    public init(_ arguments: ParsedArguments, failure: @escaping @Sendable (OptionError) -> Failure) {
        self.arguments = arguments
        self.failure = failure
    }

    /// The parsers, pointing their errors at this command line's `--help`.
    public var parse: ValueParsers { ValueParsers(invocation: arguments.invocation) }

    /// The option's last value through `convert`; nil when the option is absent. The hook for parsers a
    /// program adds to `ValueParsers`.
    public func value<Value>(
        _ option: String,
        _ convert: (ValueParsers, String) throws(OptionError) -> Value
    ) throws(Failure) -> Value? {
        guard let text = arguments.value(option) else { return nil }
        do throws(OptionError) {
            return try convert(parse, text)
        } catch {
            throw failure(error)
        }
    }

    public func positiveNumber(_ option: String) throws(Failure) -> Double? {
        try value(option) { parse, text throws(OptionError) in try parse.positiveNumber(option, text) }
    }

    public func nonNegativeNumber(_ option: String) throws(Failure) -> Double? {
        try value(option) { parse, text throws(OptionError) in try parse.nonNegativeNumber(option, text) }
    }

    public func integer(_ option: String, in range: ClosedRange<Int>) throws(Failure) -> Int? {
        try value(option) { parse, text throws(OptionError) in try parse.integer(option, text, in: range) }
    }

    public func unsignedInteger(_ option: String) throws(Failure) -> UInt64? {
        try value(option) { parse, text throws(OptionError) in try parse.unsignedInteger(option, text) }
    }

    public func ratio(_ option: String) throws(Failure) -> Double? {
        try value(option) { parse, text throws(OptionError) in try parse.ratio(option, text) }
    }

    public func choice(_ option: String, _ choices: [String]) throws(Failure) -> String? {
        try value(option) { parse, text throws(OptionError) in try parse.choice(option, text, choices) }
    }

    public func nonEmpty(_ option: String, _ expected: String) throws(Failure) -> String? {
        try value(option) { parse, text throws(OptionError) in try parse.nonEmpty(option, text, expected) }
    }

    public func url(_ option: String) throws(Failure) -> URL? {
        try value(option) { parse, text throws(OptionError) in try parse.url(option, text) }
    }
}

extension OptionReader where Failure == OptionError {
    /// Reads whose failures are the parser's own `OptionError`.
    public init(_ arguments: ParsedArguments) {
        self.init(arguments) { $0 }
    }
}
