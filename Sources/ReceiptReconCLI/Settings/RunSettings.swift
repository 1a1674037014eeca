import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

/// The settings of one `run` or `verify-user`, each read once from its declaration (`SettingsTable`) by
/// the settings' one rule (`SettingResolver`). What the engine acts on (`runOptions`), what the run
/// records (`request`) and what the demo records are all derived from it, so a setting's default is
/// written once, in its declaration (or in `RunOptions.defaults` for a field the engine reads).
struct RunSettings: Sendable {
    /// The settings a run resolves, whether or not its command takes their flags (`verify-user`
    /// takes no `--shard`, yet a bad `RECON_SWEEP_DAYS` stops it as it stops `run`).
    static var declarations: [any SettingDeclaration] { SettingsTable.verification + SettingsTable.runOnly }

    /// The one instant a live night stands for (`recon_runs.as_of` without `--as-of`), taken once as the
    /// settings are read.
    let startedAt: Date
    /// The values given by flag or variable (or set by the demo), by `SettingDeclaration.id`.
    private var given: [String: any Sendable] = [:]

    /// Every setting at its default.
    init(startedAt: Date = Date()) {
        self.startedAt = startedAt
    }

    /// Reads every setting of a run, in `SettingsTable.checkOrder`, so that of two bad values the first in
    /// that order is the one reported.
    /// - Throws: a usage error (64) for a bad flag value, a configuration error (78) for a bad variable.
    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        self.init()
        let resolver = SettingResolver(arguments, environment: environment)
        for declaration in SettingsTable.inCheckOrder(Self.declarations) {
            if let value = try declaration.given(resolver) { given[declaration.id] = value }
        }
    }

    /// The setting's value: as given, else its default (which may follow other settings).
    subscript<Value>(setting: Setting<Value>) -> Value {
        get {
            if let value = given[setting.id] as? Value { return value }
            return setting.derivedDefault?(self, setting.defaultValue) ?? setting.defaultValue
        }
        set { given[setting.id] = newValue }
    }

    /// Whether the setting was given rather than defaulted.
    func isGiven(_ setting: some SettingDeclaration) -> Bool { given[setting.id] != nil }

    /// Whether a night with `backend` reads Apple's notification history.
    func readsNotifications(backend: ServerAPISettings.Backend) -> Bool {
        backend == .serverAPI && !self[NotificationSettings.noNotifications]
    }

    /// What the engine acts on: every setting that names a `RunOptions` field set on it.
    func runOptions(environment: AppStoreEnvironment, backend: ServerAPISettings.Backend) -> RunOptions {
        var options = RunOptions(asOf: self[RunScopeSettings.asOf], startedAt: startedAt)
        for declaration in Self.declarations { declaration.apply(self, to: &options) }
        options.environment = environment
        if readsNotifications(backend: backend) {
            options.notifications = RunOptions.NotificationSelection(
                since: self[NotificationSettings.notificationsSince], sweepDays: self[NotificationSettings.sweepDays],
                olderThanGiven: isGiven(RunScopeSettings.olderThan))
        }
        return options
    }

    /// `declarations` as a run with `backend` records them (`recon_runs.options`).
    func request(_ declarations: [any SettingDeclaration], backend: ServerAPISettings.Backend) -> RunRequest {
        var runs: Set<RecordingRuns> = [.every]
        if backend == .serverAPI { runs.insert(.serverAPI) }
        if readsNotifications(backend: backend) { runs.insert(.notificationNights) }
        var request = RunRequest()
        for declaration in declarations { declaration.record(self, in: runs, into: &request) }
        return request
    }
}
