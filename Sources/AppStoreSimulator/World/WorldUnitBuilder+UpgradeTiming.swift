import AppStoreReceipts

/// The users of issue 35's point 2 (one instant per judgement): Apple answers about them later than the
/// run's `--as-of`, and its answers hold what happened in between.
extension WorldUnitBuilder {
    private typealias Catalog = WorldCatalog

    /// `upgradedDuringNight`: a monthly subscriber whose current period runs well past `asOf`; the night
    /// reaches them hours after its start (`asOf`), and the customer upgraded to the yearly plan in
    /// between. Apple's answers, given then, show the monthly period upgraded (dated after `asOf`) and the
    /// yearly period continuing the chain. At `asOf` neither had happened: the monthly period grants to
    /// its own expiry, which the app's row holds.
    mutating func addUpgradeDuringNight(to user: inout WorldUser, rng: inout SplitMix64) {
        let monthly = Catalog.premiumMonthly
        let month = SubscriptionClock.length(.month, in: home)
        // A few hours of a production night (0.4 % to 0.8 % of a 30-day month); seconds in the sandbox.
        let lateness = max(2_000, fraction(&rng, 0.004...0.008, of: month))
        let upgradeAt = asOf + max(1_000, fraction(&rng, 0.2...0.8, of: lateness))
        let lastMonthly = asOf - fraction(&rng, 0.1...0.7, of: month)
        let periods = rng.int(in: 1...6)
        let start = lastMonthly - Int64(periods - 1) * month
        let account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
        var chain = subscribe(account, monthly, start: start, periods: periods)
        let created = shortlyAfter(&rng, lastMonthly, in: home)
        let monthlyExpiry = chain.lastExpiry
        updateTransaction(account, chain.transactionIDs.last!) { $0.upgradedAt = upgradeAt }
        continueChain(&chain, with: Catalog.premiumYearly, at: upgradeAt)
        accounts[account].answeredAfterAsOfMs = lateness
        user.receipts = [receipt(.app(account: account, createdMs: created), created)]
        user.entitlements = [row("premium", true, monthlyExpiry, monthly.id, chain.originalTransactionID, created)]
    }
}
