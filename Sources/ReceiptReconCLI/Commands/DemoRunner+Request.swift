import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Reconciliation

extension DemoRunner {
    /// The settings the demo's run takes from `RunSettings` and records: those its in-process engine and
    /// driver are built with. It has no request budget, reads no notification history and keeps its
    /// clients' own answer-size and retry-wait limits, so those settings stay out of its record.
    static let recordedSettings: [any SettingDeclaration] = [
        RunScopeSettings.dryRun, RunScopeSettings.asOf, AppleRequestSettings.rate, AppleRequestSettings.concurrency,
        AppleRequestSettings.timeout, AppleRequestSettings.maxAttempts, RunScopeSettings.olderThan,
        RunScopeSettings.limit, RunScopeSettings.shard, SafetySettings.sandboxPolicy, SafetySettings.maxUnverifiedRatio,
        SafetySettings.maxRevokeRatio, AppleRequestSettings.httpClient, DatabaseSettings.reconnectWindow,
    ]

    /// The settings of the demo's nightly run, as `receipt-recon run --older-than 0` would read them at
    /// `asOf`, paced for the simulator on loopback; it selects every receipt (`--older-than 0`), so it reads
    /// no notification history on either backend; the rest at their defaults.
    static func settings(asOf: Date) -> RunSettings {
        var settings = RunSettings()
        settings[RunScopeSettings.asOf] = asOf
        settings[NotificationSettings.noNotifications] = true
        settings[RunScopeSettings.olderThan] = 0
        settings[AppleRequestSettings.concurrency] = 32
        settings[AppleRequestSettings.rate] = 2000
        return settings
    }

    /// What the demo's run records in `recon_runs.options`: `recordedSettings` under the keys `run` records
    /// them, and the configuration the demo stands for, without the limits and version a `run` adds.
    static func request(_ settings: RunSettings, backend: ServerAPISettings.Backend) -> RunRequest {
        var request = settings.request(recordedSettings, backend: backend)
        request.record(AppleSettings.environment, .production)
        request.record(AppleSettings.bundleIDs, [WorldCatalog.appBundleID])
        request.record(BackendSettings.backend, backend)
        return request
    }
}
