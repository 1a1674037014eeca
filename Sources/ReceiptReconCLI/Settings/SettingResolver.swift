import CommandLineOptions

/// Reads settings by one rule: a flag overrides its variable, which overrides the default. A value that
/// cannot be read is blamed where it was given: a flag's is a usage error (64) pointing at the command's
/// help, a variable's a configuration error (78) naming the variable. An empty variable counts as unset
/// (`NAME=` in an environment file is no setting).
struct SettingResolver: Sendable {
    /// Where a value came from, as errors name it: `--api-key-id` or `APPLE_API_KEY_ID`.
    enum Source: Sendable, Equatable, CustomStringConvertible {
        case flag(String)
        case variable(String)

        var description: String {
            switch self {
            case .flag(let name): "--\(name)"
            case .variable(let name): name
            }
        }
    }

    let arguments: ParsedArguments
    let environment: [String: String]

    init(_ arguments: ParsedArguments, environment: [String: String]) {
        self.arguments = arguments
        self.environment = environment
    }

    /// The setting's value, or its default when neither its flag nor its variable is given.
    func value<Value>(_ setting: Setting<Value>) throws(CommandError) -> Value {
        try given(setting) ?? setting.defaultValue
    }

    /// The setting's value from its flag or variable; nil when neither is given.
    func given<Value>(_ setting: Setting<Value>) throws(CommandError) -> Value? {
        try sourced(setting)?.value
    }

    /// The setting's value from its flag or variable, and which one it was.
    func sourced<Value>(_ setting: Setting<Value>) throws(CommandError) -> (value: Value, source: Source)? {
        let parsers = ValueParsers(invocation: arguments.invocation)
        if let option = setting.option, arguments.has(option.name) {
            do throws(OptionError) {
                return (try setting.readFlag(parsers, arguments.all(option.name)), .flag(option.name))
            } catch {
                throw CommandError(usage: error)
            }
        }
        guard let variable = setting.variable, let text = self.variable(variable.name) else { return nil }
        do throws(OptionError) {
            return (try setting.readVariable(parsers, text), .variable(variable.name))
        } catch {
            throw variable.refused(text)
        }
    }

    /// Whether the setting's flag is on the command line, its value unread.
    func hasFlag(_ setting: some SettingDeclaration) -> Bool {
        setting.option.map { arguments.has($0.name) } ?? false
    }

    /// A variable's text; nil when unset or empty.
    func variable(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
