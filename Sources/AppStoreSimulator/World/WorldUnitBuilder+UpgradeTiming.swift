import AppStoreReceipts

/// The users of issue 35's point 2 (one instant per judgement): Apple answers about them later than the
/// run's `--as-of`, and its answers hold what happened in between.
extension WorldUnitBuilder {
    /// `upgradedDuringNight`: a monthly subscriber whose current period runs well past `asOf`; the night
    /// reaches them hours after its start (`asOf`), and the customer upgraded to the yearly plan in
    /// between. Apple's answers, given then, show the monthly period upgraded (dated after `asOf`) and the
    /// yearly period continuing the chain. At `asOf` neither had happened: the monthly period grants to
    /// its own expiry, which the app's row holds.
    mutating func addUpgradeDuringNight(to user: inout WorldUser, rng: inout SplitMix64) {
        let month = SubscriptionClock.length(.month, in: home)
        // A few hours of a production night (0.4 % to 0.8 % of a 30-day month); seconds in the sandbox.
        let lateness = max(2_000, fraction(&rng, 0.004...0.008, of: month))
        let upgradeAt = asOf + max(1_000, fraction(&rng, 0.2...0.8, of: lateness))
        let lastMonthly = asOf - fraction(&rng, 0.1...0.7, of: month)
        let account = upgradeToYearly(&user, &rng, lastMonthly: lastMonthly, periods: 1...6, upgradeAt: upgradeAt)
        accounts[account].answeredAfterAsOfMs = lateness
    }
}
