import CommandLineOptions
import Foundation
import Reconciliation

/// One setting, declared once: its flag and help line, its environment variable, its default, how its
/// text is read, and the key `recon_runs.options` records it under. `SettingResolver` reads it,
/// `SettingsTable` lists the settings for the help texts, and a test holds README.md to them.
struct Setting<Value: Sendable>: Sendable {
    /// The flag with its help line and help default; nil for a setting read only from the environment.
    let option: OptionSpec?
    /// The environment variable; nil for a flag without one.
    let variable: SettingVariable?
    let defaultValue: Value
    /// The default as README.md's configuration table states it; nil for a setting the table leaves out.
    let documentedDefault: String?
    /// The keys `recorded` writes, for the table of what a run records.
    let recordKeys: [String]
    let recorded: @Sendable (Value) -> [String: RecordedValue]
    /// Reads the flag's values (one, or every one of a repeatable flag); failures name the flag.
    fileprivate(set) var readFlag: @Sendable (ValueParsers, [String]) throws(OptionError) -> Value
    /// Reads the variable's text; a failure becomes the variable's own refusal (`SettingVariable.refused`).
    let readVariable: @Sendable (ValueParsers, String) throws(OptionError) -> Value

    /// A setting of one value, read alike from its flag and its variable, and not recorded.
    init(
        option: OptionSpec?, variable: SettingVariable? = nil, default defaultValue: Value,
        documented: String? = nil,
        parse: @escaping @Sendable (ValueParsers, String) throws(OptionError) -> Value
    ) {
        self.init(
            option: option, variable: variable, default: defaultValue, documented: documented, recordKeys: [],
            recorded: { _ in [:] }, parse: parse)
    }

    /// A setting of one value that `recorded` writes under `recordKeys` (`--shard` writes two).
    init(
        option: OptionSpec?, variable: SettingVariable? = nil, default defaultValue: Value,
        documented: String? = nil, recordKeys: [String],
        recorded: @escaping @Sendable (Value) -> [String: RecordedValue],
        parse: @escaping @Sendable (ValueParsers, String) throws(OptionError) -> Value
    ) {
        self.option = option
        self.variable = variable
        self.defaultValue = defaultValue
        self.documentedDefault = documented
        self.recordKeys = recordKeys
        self.recorded = recorded
        readVariable = parse
        // A single-valued flag appears at most once (`ParsedArguments`); a repeatable one that reads as
        // one value takes the last.
        readFlag = { parsers, texts throws(OptionError) in try parse(parsers, texts.last ?? "") }
    }
}

extension Setting where Value: Recordable {
    /// A setting of one value recorded under `key`.
    init(
        option: OptionSpec?, variable: SettingVariable? = nil, default defaultValue: Value,
        documented: String? = nil, record key: String,
        parse: @escaping @Sendable (ValueParsers, String) throws(OptionError) -> Value
    ) {
        self.init(
            option: option, variable: variable, default: defaultValue, documented: documented, recordKeys: [key],
            recorded: { [key: $0.recorded] }, parse: parse)
    }
}

extension Setting {
    /// An optional setting recorded under `key` when it has a value.
    init<Wrapped: Recordable>(
        option: OptionSpec?, variable: SettingVariable? = nil, default defaultValue: Value,
        documented: String? = nil, record key: String,
        parse: @escaping @Sendable (ValueParsers, String) throws(OptionError) -> Value
    ) where Value == Wrapped? {
        self.init(
            option: option, variable: variable, default: defaultValue, documented: documented, recordKeys: [key],
            recorded: { $0.map { [key: $0.recorded] } ?? [:] }, parse: parse)
    }
}

extension Setting where Value == [String] {
    /// A list: its repeatable flag's values, else its variable's comma-separated ones (blank items
    /// dropped), else empty.
    init(
        list option: OptionSpec, variable: SettingVariable, documented: String? = nil, recordKeys: [String] = [],
        recorded: @escaping @Sendable ([String]) -> [String: RecordedValue] = { _ in [:] }
    ) {
        self.option = option
        self.variable = variable
        defaultValue = []
        documentedDefault = documented
        self.recordKeys = recordKeys
        self.recorded = recorded
        readFlag = { _, texts in texts }
        readVariable = { _, text in
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }
}

extension Setting {
    /// The same setting with every value of its repeatable flag read at once by `parse`
    /// (`--app-apple-id`, whose values make one map).
    func readingEveryFlag(
        _ parse: @escaping @Sendable (ValueParsers, [String]) throws(OptionError) -> Value
    ) -> Setting {
        var setting = self
        setting.readFlag = parse
        return setting
    }

    /// The same setting with its flag read by `parse`: for a flag that says where the value is rather
    /// than what it is (`--shared-secret-file`).
    func readingFlag(_ parse: @escaping @Sendable (ValueParsers, String) throws(OptionError) -> Value) -> Setting {
        var setting = self
        setting.readFlag = { parsers, texts throws(OptionError) in try parse(parsers, texts.last ?? "") }
        return setting
    }
}

/// A setting's declaration without its value type: what help texts and the README check read.
protocol SettingDeclaration: Sendable {
    var option: OptionSpec? { get }
    var variable: SettingVariable? { get }
    var documentedDefault: String? { get }
    var recordKeys: [String] { get }
    /// Reads the setting from `settings` and drops the value: whether it can be read at all.
    /// - Throws: what `SettingResolver` throws for it.
    func check(_ settings: SettingResolver) throws(CommandError)
}

extension Setting: SettingDeclaration {
    func check(_ settings: SettingResolver) throws(CommandError) { _ = try settings.given(self) }
}
