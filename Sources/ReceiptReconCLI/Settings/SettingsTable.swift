import CommandLineOptions

/// Every setting, in the order the help texts list them: the options of `run` and `verify-user` (and the
/// database and Apple options other commands share), and the environment variables. The help texts are
/// generated from it, and a test holds README.md's configuration table to it.
///
/// A new setting: declare it beside the settings of its concept (its flag, variable, default, parser,
/// and `record:` when the run's row should show it), list it here, read it with `SettingResolver`, and
/// give README.md's table its row (`ReadmeSettingsTests` says what is missing).
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

    /// Every setting, once.
    static var all: [any SettingDeclaration] {
        verification + runOnly + database + apple + [OutputSettings.progressInterval]
    }

    /// The flags of `settings`, for a command's options and help.
    static func options(_ settings: [any SettingDeclaration]) -> [OptionSpec] { settings.compactMap(\.option) }
}
