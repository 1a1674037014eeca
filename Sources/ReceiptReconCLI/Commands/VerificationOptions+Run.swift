import Foundation
import Reconciliation

extension VerificationOptions {
    /// What the engine acts on, and the record of what the run was asked (`recon_runs.options`), from
    /// these options and the configuration. Without `--as-of` the night is live: each user is judged when
    /// Apple answered about them, and the record keeps no `asOf` (`recon_runs.as_of` is the start).
    func run(_ configuration: Configuration) -> (options: RunOptions, request: RunRequest) {
        var options = RunOptions(asOf: asOf)
        options.dryRun = dryRun
        options.concurrency = concurrency
        options.olderThan = olderThan
        options.limit = limit
        (options.shardIndex, options.shardCount) = shard
        options.sandboxPolicy = sandboxPolicy
        options.maxUnverifiedRatio = maxUnverifiedRatio
        options.maxRevokeRatio = maxRevokeRatio
        options.environment = configuration.environment
        options.reconnectWindow = reconnectWindow
        if configuration.serverAPI.backend == .serverAPI, !noNotifications {
            options.notifications = RunOptions.NotificationSelection(
                since: notificationsSince, sweepDays: sweepDays, olderThanGiven: olderThanGiven)
        }

        var request = RunRequest()
        request.record(RunScopeSettings.dryRun, dryRun)
        request.record(RunScopeSettings.asOf, asOf)
        request.record(AppleRequestSettings.rate, rate)
        request[RunRequest.Key.rateBasis] = .text(rateBasis)
        request.record(AppleRequestSettings.sandboxRate, sandboxRate)
        request.record(AppleRequestSettings.concurrency, concurrency)
        request.record(AppleRequestSettings.timeout, timeout)
        request.record(AppleRequestSettings.maxAttempts, maxAttempts)
        request.record(RunScopeSettings.olderThan, olderThan)
        request.record(RunScopeSettings.limit, limit)
        request.record(RunScopeSettings.shard, shard)
        request.record(SafetySettings.sandboxPolicy, sandboxPolicy)
        request.record(SafetySettings.maxUnverifiedRatio, maxUnverifiedRatio)
        request.record(SafetySettings.maxRevokeRatio, maxRevokeRatio)
        request.record(AppleRequestSettings.httpClient, httpClient)
        request.record(DatabaseSettings.reconnectWindow, reconnectWindow)
        request.record(AppleRequestSettings.maxAnswerBytes, maxAnswerBytes)
        request.record(AppleRequestSettings.maxRetryWait, maxRetryWait)
        request.record(NotificationSettings.maxRequestsPerHour, maxRequestsPerHour)
        request.record(NotificationSettings.sandboxMaxRequestsPerHour, sandboxMaxRequestsPerHour)
        if configuration.serverAPI.backend == .serverAPI {
            request.record(NotificationSettings.noNotifications, noNotifications)
            if !noNotifications {
                request.record(NotificationSettings.notificationsSince, notificationsSince)
                request.record(NotificationSettings.sweepDays, sweepDays)
            }
        }
        request.record(NotificationSettings.budgetHours, budgetHours)
        request.record(AppleSettings.environment, configuration.environment)
        request.record(AppleSettings.bundleIDs, configuration.bundleIDs)
        request.record(AppleSettings.rootCertificates, configuration.rootCertificateFiles)
        request.record(BackendSettings.backend, configuration.serverAPI.backend)
        request[RunRequest.Key.version] = .text(ReceiptRecon.version)
        return (options, request)
    }
}

extension RunRequest {
    /// Records `value` under the key(s) `setting` declares; a setting declared unrecorded adds nothing.
    mutating func record<Value>(_ setting: Setting<Value>, _ value: Value) {
        for (key, recorded) in setting.recorded(value) { self[key] = recorded }
    }
}
