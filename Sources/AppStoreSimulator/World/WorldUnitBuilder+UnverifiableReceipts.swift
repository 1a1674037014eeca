import AppStoreReceipts

/// The scenarios whose receipts Apple cannot vouch for: tampered, from a deleted account, from Xcode,
/// not a receipt at all, or one Apple fails on.
extension WorldUnitBuilder {
    private typealias Catalog = WorldCatalog

    mutating func addUnverifiableReceipts(to user: inout WorldUser, rng: inout SplitMix64) {
        let monthly = Catalog.premiumMonthly
        let month = SubscriptionClock.length(.month, in: home)
        switch user.scenario {
        case .tamperedReceipt:
            let purchase = asOf - days(&rng, 5...300)
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...60))
            let id = buy(account, Catalog.pro, at: purchase)
            let created = shortlyAfter(&rng, purchase, in: home)
            user.receipts = [receipt(.tamperedApp(account: account, createdMs: created), created)]
            user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, created)]

        case .deletedAccount:
            let deletedAt = asOf - days(&rng, 1...100)
            let lastPurchase = deletedAt - fraction(&rng, 0.05...0.95, of: month)
            let periods = rng.int(in: 1...7)
            let start = lastPurchase - Int64(periods - 1) * month
            let account = openAccount(
                &rng, environment: home, downloadedAt: start - days(&rng, 1...60),
                standing: .deleted(at: deletedAt))
            let chain = subscribe(account, monthly, start: start, periods: periods)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            user.entitlements = [premium(true, chain.lastExpiry, chain, created)]

        case .xcodeReceipt:
            // A developer's StoreKit-testing receipt that reached the production backend.
            let created = asOf - days(&rng, 1...100)
            user.receipts = [receipt(.xcode(createdMs: created), created)]
            user.entitlements = [
                row("premium", true, created + 30 * SubscriptionClock.millisecondsPerDay, monthly.id, "0", created)
            ]

        case .garbageReceipt, .emptyReceiptData, .notBase64ReceiptData:
            let created = asOf - days(&rng, 1...200)
            switch user.scenario {
            case .garbageReceipt:
                user.receipts = [receipt(.garbage(byteCount: rng.int(in: 48...700)), created)]
                user.entitlements = [row("pro", true, nil, Catalog.pro.id, nil, created)]
            case .emptyReceiptData:
                user.receipts = [receipt(.empty, created)]
                user.entitlements = [row("pro", true, nil, Catalog.pro.id, nil, created)]
            default:
                user.receipts = [receipt(.notBase64, created)]
                user.entitlements = [row("premium", true, asOf + days(&rng, 1...20), monthly.id, nil, created)]
            }

        case .appleInternalError:
            // Two Apple IDs: Apple cannot serve the first (21199, not retryable); the second bought pro
            // and let an old subscription lapse. The lapse must not revoke while a receipt is unverified.
            let plan = planActive(&rng, monthly, renewals: 0...5)
            let failing = openAccount(
                &rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60),
                standing: .internalError)
            let chain = subscribe(failing, monthly, start: plan.start, periods: plan.periods)
            let firstCreated = shortlyAfter(&rng, chain.lastPurchase, in: home)
            let proPurchase = asOf - days(&rng, 200...500)
            let lapsedExpiry = asOf - fraction(&rng, 0.5...4.0, of: month)
            let lapsedPeriods = rng.int(in: 1...4)
            let lapsedStart = lapsedExpiry - Int64(lapsedPeriods) * month
            let second = openAccount(
                &rng, environment: home, downloadedAt: min(proPurchase, lapsedStart) - days(&rng, 1...30))
            buy(second, Catalog.pro, at: proPurchase)
            let lapsed = subscribe(second, monthly, start: lapsedStart, periods: lapsedPeriods)
            cancelAutoRenew(lapsed)
            let secondCreated = shortlyAfter(&rng, max(proPurchase, lapsed.lastPurchase), in: home)
            user.receipts = [
                receipt(.app(account: failing, createdMs: firstCreated), firstCreated),
                receipt(.app(account: second, createdMs: secondCreated), secondCreated),
            ]
            user.entitlements = [premium(true, chain.lastExpiry, chain, firstCreated)]

        default:
            preconditionFailure("\(user.scenario) is not an unverifiable-receipt scenario")
        }
    }
}
