/// One `--option` a program or command accepts: its spelling, whether it takes a value, and its help.
public struct OptionSpec: Sendable {
    public enum Arity: Sendable {
        /// `--dry-run`: present or not.
        case flag
        /// `--rate R`: one value, at most once.
        case value(placeholder: String)
        /// `--bundle-id ID`: one value, any number of times.
        case repeatable(placeholder: String)
    }

    public let name: String
    public let arity: Arity
    public let help: String
    /// Shown in help as "(default: …)".
    public let defaultText: String?

    public init(_ name: String, _ arity: Arity, _ help: String, default defaultText: String? = nil) {
        self.name = name
        self.arity = arity
        self.help = help
        self.defaultText = defaultText
    }

    public var takesValue: Bool {
        if case .flag = arity { return false }
        return true
    }

    /// `--rate R`, as error messages and the help's options table spell it.
    public var usageText: String {
        switch arity {
        case .flag: return "--\(name)"
        case .value(let placeholder), .repeatable(let placeholder): return "--\(name) \(placeholder)"
        }
    }

    /// `[--rate R]`, or `[--job-arg ARG]...` for a repeatable option, for a usage line.
    public var synopsis: String {
        if case .repeatable = arity { return "[\(usageText)]..." }
        return "[\(usageText)]"
    }
}
