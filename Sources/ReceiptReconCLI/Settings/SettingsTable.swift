import CommandLineOptions

/// Every setting, in the order the help texts list them: the options of `run` and `verify-user` (and the
/// database and Apple options other commands share), and the environment variables. The help texts are
/// generated from it, and a test holds README.md's configuration table to it.
///
/// A new setting of `run`: declare it beside the settings of its concept (its flag, variable, default,
/// parser, `record:` when the run's row should show it, `.applied(to: \.field)` for the `RunOptions`
/// field the engine reads) and list it here; `RunSettings` resolves, records and applies it. Give
/// README.md's table its row when it has a variable (`ReadmeSettingsTests` says what is missing).
enum SettingsTable {
    /// The options of both `run` and `verify-user`.
    static let verification: [any SettingDeclaration] = [
        RunScopeSettings.dryRun, RunScopeSettings.asOf, AppleRequestSettings.rate, AppleRequestSettings.sandboxRate,
        AppleRequestSettings.concurrency,
        AppleRequestSettings.timeout, AppleRequestSettings.maxAttempts, SafetySettings.sandboxPolicy,
        SafetySettings.maxUnverifiedRatio, SafetySettings.maxRevokeRatio, OutputSettings.json,
        OutputSettings.metricsFile, AppleRequestSettings.httpClient, DatabaseSettings.reconnectWindow,
        AppleRequestSettings.maxAnswerBytes, AppleRequestSettings.maxRetryWait,
        NotificationSettings.maxRequestsPerHour, NotificationSettings.sandboxMaxRequestsPerHour,
    ]

    /// `run` only: which receipts are due, and the shard.
    static let runOnly: [any SettingDeclaration] = [
        RunScopeSettings.olderThan, RunScopeSettings.limit, RunScopeSettings.shard,
        NotificationSettings.notificationsSince, NotificationSettings.noNotifications, NotificationSettings.sweepDays,
        NotificationSettings.budgetHours,
    ]

    /// Every command that opens the database.
    static let database: [any SettingDeclaration] = [DatabaseSettings.url]

    /// Every command that asks Apple.
    static let apple: [any SettingDeclaration] = [
        AppleSettings.sharedSecret, AppleSettings.bundleIDs, AppleSettings.appAppleIDs, AppleSettings.productionURL,
        AppleSettings.sandboxURL, AppleSettings.environment, AppleSettings.rootCertificates, BackendSettings.backend,
        BackendSettings.keyFile,
        BackendSettings.keyID, BackendSettings.issuerID, BackendSettings.productionURL, BackendSettings.sandboxURL,
    ]

    /// The settings that have an environment variable, in the order of the help's CONFIGURATION section.
    static let variables: [any SettingDeclaration] = [
        DatabaseSettings.url, AppleSettings.sharedSecret, AppleSettings.bundleIDs, AppleSettings.appAppleIDs,
        AppleSettings.productionURL,
        AppleSettings.sandboxURL, AppleSettings.environment, AppleSettings.rootCertificates,
        AppleRequestSettings.httpClient, DatabaseSettings.reconnectWindow, AppleRequestSettings.maxAnswerBytes,
        AppleRequestSettings.maxRetryWait, BackendSettings.backend, BackendSettings.keyFile, BackendSettings.keyID,
        BackendSettings.issuerID, BackendSettings.productionURL, BackendSettings.sandboxURL,
        OutputSettings.progressInterval, NotificationSettings.sweepDays, NotificationSettings.maxRequestsPerHour,
        NotificationSettings.sandboxMaxRequestsPerHour, NotificationSettings.budgetHours,
    ]

    /// The settings whose checks ran in this order before `RunSettings` read them all alike: of two bad
    /// values the first here is still the one reported. A setting not listed is read after them.
    static let checkOrder: [any SettingDeclaration] = [
        RunScopeSettings.dryRun, OutputSettings.json, RunScopeSettings.asOf, AppleRequestSettings.rate,
        AppleRequestSettings.concurrency, AppleRequestSettings.timeout, AppleRequestSettings.maxAttempts,
        RunScopeSettings.olderThan, RunScopeSettings.limit, RunScopeSettings.shard, AppleRequestSettings.sandboxRate,
        SafetySettings.sandboxPolicy, SafetySettings.maxUnverifiedRatio, SafetySettings.maxRevokeRatio,
        OutputSettings.metricsFile, AppleRequestSettings.httpClient, DatabaseSettings.reconnectWindow,
        AppleRequestSettings.maxAnswerBytes, AppleRequestSettings.maxRetryWait, NotificationSettings.notificationsSince,
        NotificationSettings.noNotifications, NotificationSettings.sweepDays, NotificationSettings.maxRequestsPerHour,
        NotificationSettings.sandboxMaxRequestsPerHour, NotificationSettings.budgetHours,
    ]

    /// `settings` with those of `checkOrder` first, in its order.
    static func inCheckOrder(_ settings: [any SettingDeclaration]) -> [any SettingDeclaration] {
        let ordered = checkOrder.filter { listed in settings.contains { $0.id == listed.id } }
        return ordered + settings.filter { setting in !ordered.contains { $0.id == setting.id } }
    }

    /// Every setting, once.
    static var all: [any SettingDeclaration] {
        verification + runOnly + database + apple + [OutputSettings.progressInterval]
    }

    /// The flags of `settings`, for a command's options and help.
    static func options(_ settings: [any SettingDeclaration]) -> [OptionSpec] { settings.compactMap(\.option) }
}
