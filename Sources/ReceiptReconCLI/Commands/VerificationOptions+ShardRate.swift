import AppStoreReceipts
import Reconciliation

extension VerificationOptions {
    /// `--rate`'s default: Apple's limits are per app, so it is what all the job's processes together ask.
    public static let defaultRate = AppleRequestSettings.rate.defaultValue

    /// The rate one process asks for, and where it came from (`RunRequest.rateBasis`): `--rate` as given,
    /// or the default, divided among `shardCount` shards that share Apple's per-app budget.
    static func rate(given: Double?, shardCount: Int) -> (rate: Double, basis: String) {
        if let given { return (given, "--rate") }
        guard shardCount > 1 else { return (defaultRate, "default") }
        return (
            defaultRate / Double(shardCount),
            "default \(RunRequest.rateText(defaultRate))/s divided among \(shardCount) shards"
        )
    }

    /// The sandbox's rate: `--sandbox-rate` as given, else a tenth of the production rate in effect
    /// (so divided among shards as that one is), as Apple's sandbox limits are a tenth of production's.
    static func sandboxRate(given: Double?, productionRate: Double) -> Double {
        given ?? SandboxLimits.rate(production: productionRate)
    }

    /// The sandbox's hourly budget: `--sandbox-max-requests-per-hour` (or its variable) as given, else a
    /// tenth of the production budget in effect.
    static func sandboxMaxRequestsPerHour(given: Int?, production: Int) -> Int {
        given ?? SandboxLimits.requestsPerHour(production: production)
    }
}
