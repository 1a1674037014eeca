import AppStoreReceipts

/// The users of an incremental world (`IncrementalWorld`): one Apple account each, one StoreKit 2 row
/// (the JWS of the purchase as the app knew it at `since`), and entitlement rows as the app holds them at
/// `asOf`: right for quiet users and delivered changes, stale for missed ones.
///
/// Quiet users are quiet from an hour before `since` on (the cursor's overlap): no renewal, expiry or
/// refund in `(since − 1 h, asOf]`. A changed user's one change lands in `(since, asOf]`; a new
/// subscriber's row was stored then too, and no run has verified it.
extension WorldUnitBuilder {
    private typealias Catalog = WorldCatalog

    mutating func addIncrementalUser(
        index: Int, plan: IncrementalWorld.UserPlan, since: Int64, rng: inout SplitMix64
    ) {
        var user = WorldUser(
            index: index, id: WorldUser.id(forIndex: index), scenario: .storeKit2Active, isSandboxTester: false,
            receipts: [], entitlements: [])
        let monthly = Catalog.premiumMonthly
        let month = SubscriptionClock.length(.month, in: home)
        let hour: Int64 = 3_600_000
        // The change's instant: inside (since, asOf], whole seconds.
        let changeAt = since + max(1_000, fraction(&rng, 0.05...0.95, of: asOf - since))

        switch plan.change {
        case nil where plan.quietLifetime:
            let purchase = since - hour - days(&rng, 1...700)
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.pro, at: purchase)
            let signed = shortlyAfter(&rng, purchase, in: home)
            user.receipts = [signedRow(account, id, signed)]
            user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, signed)]

        case nil:
            // The current period began before `since − 1 h` and ends after `asOf`.
            let earliest = asOf - month + 2 * hour
            let latest = since - 2 * hour
            let lastPurchase = latest - fraction(&rng, 0...1, of: max(0, latest - earliest))
            let renewals = rng.int(in: 0...6)
            let start = lastPurchase - Int64(renewals) * month
            let account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: start, periods: renewals + 1)
            let signed = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [signedRow(account, chain.transactionIDs.last!, signed)]
            user.entitlements = [premium(true, chain.lastExpiry, chain, signed)]

        case .renewal?:
            // The period the app knew ended at `changeAt`, when the next one began.
            let periods = rng.int(in: 2...7)
            let start = changeAt - Int64(periods - 1) * month
            let account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: start, periods: periods)
            let known = chain.transactionIDs.count - 2
            let signed = shortlyAfter(&rng, chain.purchases[known], in: home)
            user.receipts = [signedRow(account, chain.transactionIDs[known], signed)]
            user.entitlements = [
                plan.missed
                    ? premium(true, chain.expiries[known], chain, signed)
                    : premium(true, chain.lastExpiry, chain, shortlyAfter(&rng, changeAt, in: home))
            ]

        case .expiry?, .gracePeriod?:
            // The last period ends at `changeAt`: auto-renew was off long before, or billing fails then.
            let periods = rng.int(in: 1...6)
            let start = changeAt - Int64(periods) * month
            let account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: start, periods: periods)
            let signed = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [signedRow(account, chain.transactionIDs.last!, signed)]
            let heard = shortlyAfter(&rng, changeAt, in: home)
            if plan.change == .expiry {
                cancelAutoRenew(chain)
                user.entitlements = [premium(plan.missed, chain.lastExpiry, chain, plan.missed ? signed : heard)]
            } else {
                failBilling(chain, grace: true)
                let graceEnd = chain.lastExpiry + SubscriptionClock.gracePeriod(in: home)
                user.entitlements = [
                    plan.missed
                        ? premium(true, chain.lastExpiry, chain, signed) : premium(true, graceEnd, chain, heard)
                ]
            }

        case .newPurchase?:
            let account = openAccount(&rng, environment: home, downloadedAt: changeAt - days(&rng, 0...30))
            let chain = subscribe(account, monthly, start: changeAt, periods: 1)
            let signed = shortlyAfter(&rng, changeAt, in: home)
            user.receipts = [signedRow(account, chain.transactionIDs[0], signed)]
            user.entitlements = plan.missed ? [] : [premium(true, chain.lastExpiry, chain, signed)]

        case .refund?:
            let purchase = since - days(&rng, 10...400)
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.pro, at: purchase)
            let reason = rng.int(in: 0...1)
            updateTransaction(account, id) { $0.refund = WorldTransaction.Refund(at: changeAt, reason: reason) }
            let signed = shortlyAfter(&rng, purchase, in: home)
            user.receipts = [signedRow(account, id, signed)]
            user.entitlements = [
                plan.missed
                    ? row("pro", true, nil, Catalog.pro.id, id, signed)
                    : row("pro", false, nil, Catalog.pro.id, id, shortlyAfter(&rng, changeAt, in: home))
            ]
        }
        users.append(user)
    }
}
