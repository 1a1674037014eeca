import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Reconciliation

extension DemoRunner {
    /// What the demo's run records in `recon_runs.options`: the settings it runs with, under the keys
    /// `run` records them, without the limits and version a `run` adds.
    static func request(_ options: RunOptions, rate: Double, backend: ServerAPISettings.Backend) -> RunRequest {
        var request = RunRequest()
        request.record(RunScopeSettings.dryRun, options.dryRun)
        request.record(RunScopeSettings.asOf, options.asOf)
        request.record(AppleRequestSettings.rate, rate)
        request.record(AppleRequestSettings.concurrency, options.concurrency)
        request.record(AppleRequestSettings.timeout, AppleRequestSettings.timeout.defaultValue)
        request.record(AppleRequestSettings.maxAttempts, AppleRequestSettings.maxAttempts.defaultValue)
        request.record(RunScopeSettings.olderThan, options.olderThan)
        request.record(RunScopeSettings.limit, options.limit)
        request.record(RunScopeSettings.shard, (options.shardIndex, options.shardCount))
        request.record(SafetySettings.sandboxPolicy, options.sandboxPolicy)
        request.record(SafetySettings.maxUnverifiedRatio, options.maxUnverifiedRatio)
        request.record(SafetySettings.maxRevokeRatio, options.maxRevokeRatio)
        request.record(AppleRequestSettings.httpClient, .curl)
        request.record(DatabaseSettings.reconnectWindow, options.reconnectWindow)
        request.record(AppleSettings.environment, options.environment)
        request.record(AppleSettings.bundleIDs, [WorldCatalog.appBundleID])
        request.record(BackendSettings.backend, backend)
        return request
    }
}
