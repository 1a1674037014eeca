import Reconciliation
import Foundation

/// The arguments of one command after syntax checks: options by name and positionals in order.
/// Values are still text here; each command converts and validates them with `ValueParsers`.
public struct ParsedArguments: Sendable {
    public let command: String
    public private(set) var values: [String: [String]] = [:]
    public private(set) var positionals: [String] = []
    public private(set) var wantsHelp = false

    /// Splits `arguments` (everything after the command name) against `options`.
    /// Accepts `--name value`, `--name=value`, `--` to end options, and `-` as a positional (stdin).
    /// - Throws: a usage error for an unknown option, a missing value, a value given to a flag, or an
    ///   option repeated that may appear only once.
    public init(command: String, arguments: [String], options: [OptionSpec]) throws(CommandError) {
        self.command = command
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
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
                throw .usage("unknown option '\(argument)' for '\(command)'; options are spelled --name", command: command)
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = byName[name] else {
                throw .usage("unknown option '--\(name)' for '\(command)'", command: command)
            }
            var value: String
            if spec.takesValue {
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw .usage("option '\(spec.usageText)' needs a value", command: command)
                    }
                    value = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else {
                    throw .usage("option '--\(name)' is a flag and takes no value", command: command)
                }
                value = ""
            }
            if case .repeatable = spec.arity {} else if values[name] != nil {
                throw .usage("option '--\(name)' given more than once", command: command)
            }
            values[name, default: []].append(value)
        }
    }

    public func has(_ name: String) -> Bool { values[name] != nil }

    public func value(_ name: String) -> String? { values[name]?.last }

    public func all(_ name: String) -> [String] { values[name] ?? [] }
}

extension ParsedArguments {
    /// Typed reads of this command's options: nil when the option is absent, a usage error when its
    /// value is malformed.
    public var read: OptionReader { OptionReader(arguments: self) }
}

/// Reads options of one `ParsedArguments` through `ValueParsers`.
public struct OptionReader: Sendable {
    let arguments: ParsedArguments
    private var parse: ValueParsers { ValueParsers(command: arguments.command) }

    public func integer(_ option: String, in range: ClosedRange<Int>) throws(CommandError) -> Int? {
        guard let text = arguments.value(option) else { return nil }
        return try parse.integer(option, text, in: range)
    }

    public func positiveNumber(_ option: String) throws(CommandError) -> Double? {
        guard let text = arguments.value(option) else { return nil }
        return try parse.positiveNumber(option, text)
    }

    public func ratio(_ option: String) throws(CommandError) -> Double? {
        guard let text = arguments.value(option) else { return nil }
        return try parse.ratio(option, text)
    }

    public func choice(_ option: String, _ choices: [String]) throws(CommandError) -> String? {
        guard let text = arguments.value(option) else { return nil }
        return try parse.choice(option, text, choices)
    }

    public func age(_ option: String) throws(CommandError) -> Int? {
        guard let text = arguments.value(option) else { return nil }
        return try parse.age(option, text)
    }

    public func instant(_ option: String) throws(CommandError) -> Date? {
        guard let text = arguments.value(option) else { return nil }
        return try parse.instant(option, text)
    }

    public func shard(_ option: String) throws(CommandError) -> (index: Int, count: Int)? {
        guard let text = arguments.value(option) else { return nil }
        return try parse.shard(option, text)
    }

    public func unsignedInteger(_ option: String) throws(CommandError) -> UInt64? {
        guard let text = arguments.value(option) else { return nil }
        guard let value = UInt64(text) else {
            throw .usage("--\(option) expects a whole number of at least 0, got '\(text)'", command: arguments.command)
        }
        return value
    }
}
