import CommandLineOptions
import Foundation
import Reconciliation

extension RunSettings {
    /// The settings the run table calls its options: `run`'s and `verify-user`'s flags, for their help
    /// and parsers.
    static var shared: [OptionSpec] { SettingsTable.options(SettingsTable.verification) }
    static var runOnly: [OptionSpec] { SettingsTable.options(SettingsTable.runOnly) }

    /// What the engine acts on, and the record of what the run was asked (`recon_runs.options`), from
    /// these settings and the configuration. Without `--as-of` the night is live: each user is judged when
    /// Apple answered about them, and the record keeps no `asOf` (`recon_runs.as_of` is the start).
    func run(_ configuration: Configuration) -> (options: RunOptions, request: RunRequest) {
        let backend = configuration.serverAPI.backend
        var request = request(Self.declarations, backend: backend)
        request[RunRequest.Key.rateBasis] = .text(rateBasis)
        request.record(AppleSettings.environment, configuration.environment)
        request.record(AppleSettings.bundleIDs, configuration.bundleIDs)
        request.record(AppleSettings.rootCertificates, configuration.rootCertificateFiles)
        request.record(BackendSettings.backend, backend)
        request[RunRequest.Key.version] = .text(ReceiptRecon.version)
        return (runOptions(environment: configuration.environment, backend: backend), request)
    }

    /// Where `--rate` came from (`RunRequest.rateBasis`): as given, or the default, divided among the
    /// shards that share Apple's per-app budget.
    var rateBasis: String {
        let rate = AppleRequestSettings.rate
        let shardCount = self[RunScopeSettings.shard].count
        if isGiven(rate) { return "--rate" }
        guard shardCount > 1 else { return "default" }
        return "default \(RunRequest.rateText(rate.defaultValue))/s divided among \(shardCount) shards"
    }
}

extension RunRequest {
    /// Records `value` under the key(s) `setting` declares; a setting declared unrecorded adds nothing.
    mutating func record<Value>(_ setting: Setting<Value>, _ value: Value) {
        for (key, recorded) in setting.recorded(value) { self[key] = recorded }
    }
}
