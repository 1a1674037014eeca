import CommandLineOptions
import Foundation
import Reconciliation

/// One setting, declared once: its flag and help line, its environment variable, its default, how its
/// text is read, the key `recon_runs.options` records it under, and the `RunOptions` field it sets.
/// `SettingResolver` reads it, `RunSettings` holds a run's resolved values, `SettingsTable` lists the
/// settings for the help texts, and a test holds README.md to them.
struct Setting<Value: Sendable>: Sendable {
    /// The flag with its help line and help default; nil for a setting read only from the environment.
    fileprivate(set) var option: OptionSpec?
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
    /// The value when neither flag nor variable is given, where it follows other settings (`--rate` divided
    /// among shards), from them and `defaultValue`; nil: `defaultValue`.
    fileprivate(set) var derivedDefault: (@Sendable (RunSettings, Value) -> Value)?
    /// Sets the value on what the engine acts on; nil for a setting the engine does not read.
    fileprivate(set) var apply: (@Sendable (inout RunOptions, Value) -> Void)?
    /// Which runs record the setting.
    fileprivate(set) var recordedIn = RecordingRuns.every

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

extension Setting where Value == Bool {
    /// A flag of a command's own, not recorded: true when given.
    init(flag option: OptionSpec) {
        self.init(option: option, default: false, parse: { _, _ in true })
    }
}

extension Setting where Value == String? {
    /// A value of a command's own taken as typed (a path, an id), not recorded; nil when not given.
    init(text option: OptionSpec) {
        self.init(option: option, default: nil, parse: { _, text in text })
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
    /// The same setting setting `field` of `RunOptions`, whose default should be the setting's
    /// (`default: RunOptions.defaults.field`).
    func applied(to field: any WritableKeyPath<RunOptions, Value> & Sendable) -> Setting {
        applied { options, value in options[keyPath: field] = value }
    }

    /// The same setting set on `RunOptions` by `apply` (a value that makes more than one field).
    func applied(_ apply: @escaping @Sendable (inout RunOptions, Value) -> Void) -> Setting {
        var setting = self
        setting.apply = apply
        return setting
    }

    /// The same setting defaulting to what `derive` makes of the other settings and its declared default.
    func defaulting(_ derive: @escaping @Sendable (RunSettings, Value) -> Value) -> Setting {
        var setting = self
        setting.derivedDefault = derive
        return setting
    }

    /// The same setting recorded only in `runs`.
    func recorded(in runs: RecordingRuns) -> Setting {
        var setting = self
        setting.recordedIn = runs
        return setting
    }

    /// The same setting under its own flag with another help line: a command where it means something
    /// narrower (`inspect`'s `--bundle-id` checks signed data only).
    func helped(_ option: OptionSpec) -> Setting {
        precondition(option.name == self.option?.name, "--\(option.name) is another setting's flag")
        var setting = self
        setting.option = option
        return setting
    }

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

/// A setting's declaration without its value type: what help texts, the README check and `RunSettings`
/// read.
protocol SettingDeclaration: Sendable {
    /// What tells the setting apart: its flag's name, else its variable's.
    var id: String { get }
    var option: OptionSpec? { get }
    var variable: SettingVariable? { get }
    var documentedDefault: String? { get }
    var recordKeys: [String] { get }
    /// Reads the setting from `settings` and drops the value: whether it can be read at all.
    /// - Throws: what `SettingResolver` throws for it.
    func check(_ settings: SettingResolver) throws(CommandError)
    /// The value given by flag or variable, untyped; nil when neither is given.
    /// - Throws: what `SettingResolver` throws for it.
    func given(_ settings: SettingResolver) throws(CommandError) -> (any Sendable)?
    /// Writes the setting's value in `settings` under its keys, if `runs` record it.
    func record(_ settings: RunSettings, in runs: Set<RecordingRuns>, into request: inout RunRequest)
    /// Sets the setting's value in `settings` on `options`, if the engine reads it.
    func apply(_ settings: RunSettings, to options: inout RunOptions)
}

/// The runs whose `recon_runs.options` record a setting.
enum RecordingRuns: Sendable, Hashable {
    case every
    /// Runs with `--backend server-api`.
    case serverAPI
    /// Runs that read Apple's notification history (`RunSettings.readsNotifications`).
    case notificationNights
}

extension Setting: SettingDeclaration {
    var id: String { option?.name ?? variable?.name ?? "" }

    func check(_ settings: SettingResolver) throws(CommandError) { _ = try settings.given(self) }

    func given(_ settings: SettingResolver) throws(CommandError) -> (any Sendable)? {
        try settings.given(self).map { $0 as any Sendable }
    }

    func record(_ settings: RunSettings, in runs: Set<RecordingRuns>, into request: inout RunRequest) {
        guard runs.contains(recordedIn) else { return }
        for (key, recorded) in recorded(settings[self]) { request[key] = recorded }
    }

    func apply(_ settings: RunSettings, to options: inout RunOptions) { apply?(&options, settings[self]) }
}
