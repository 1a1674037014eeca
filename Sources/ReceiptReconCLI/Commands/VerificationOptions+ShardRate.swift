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
}
