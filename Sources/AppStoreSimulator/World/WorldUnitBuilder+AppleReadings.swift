import AppStoreReceipts

/// The receipt users of issue 25: each puts one of Apple's answers in front of the job that is easy to
/// misread (an id Apple loses, a deleted account, a prorated refund, two chains of which one is in its
/// grace period, a crafted id). `WorldScenario` states what a correct run does with each.
extension WorldUnitBuilder {
    private typealias Catalog = WorldCatalog

    mutating func addAppleReadings(to user: inout WorldUser, rng: inout SplitMix64) {
        let monthly = Catalog.premiumMonthly
        let month = SubscriptionClock.length(.month, in: home)
        let grace = SubscriptionClock.gracePeriod(in: home)
        switch user.scenario {
        case .knownIDNotFound:
            // Pro first (the receipt's first in-app id, the one a client asks about first), then a season
            // pass. The Server API loses the pro purchase's id; the season pass's history lists it.
            let proPurchase = asOf - days(&rng, 100...400)
            let passPurchase = asOf - days(&rng, 1...80)
            let account = openAccount(&rng, environment: home, downloadedAt: proPurchase - days(&rng, 0...60))
            let proID = buy(account, Catalog.pro, at: proPurchase)
            let passID = buy(account, Catalog.seasonPass, at: passPurchase)
            accounts[account].idsTheServerAPILoses = [proID]
            let created = shortlyAfter(&rng, passPurchase, in: home)
            let ends = passPurchase + Int64(Catalog.seasonPass.durationDays!) * SubscriptionClock.millisecondsPerDay
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            user.entitlements = [
                row("pro", true, nil, Catalog.pro.id, proID, created),
                row("season_pass", true, ends, Catalog.seasonPass.id, passID, created),
            ]

        case .deletedAccountLifetime:
            // The customer bought pro on an Apple account they later deleted, and subscribes on a new one;
            // that subscription's current period was refunded after the app stored its receipt.
            let deletedAt = asOf - days(&rng, 1...100)
            let proPurchase = deletedAt - days(&rng, 30...400)
            let old = openAccount(
                &rng, environment: home, downloadedAt: proPurchase - days(&rng, 0...60),
                standing: .deleted(at: deletedAt))
            let proID = buy(old, Catalog.pro, at: proPurchase)
            let proCreated = shortlyAfter(&rng, proPurchase, in: home)
            let plan = planActive(&rng, monthly, renewals: 0...5, position: 0.3...0.95)
            let new = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...30))
            let chain = subscribe(new, monthly, start: plan.start, periods: plan.periods)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            let refundedAt = chain.lastPurchase + fraction(&rng, 0.05...0.2, of: month)
            let reason = rng.int(in: 0...1)
            updateTransaction(new, chain.transactionIDs.last!) {
                $0.refund = WorldTransaction.Refund(at: refundedAt, reason: reason, reversedAt: nil)
            }
            updateRenewal(chain) { $0.autoRenewStatus = false }
            user.receipts = [
                receipt(.app(account: old, createdMs: proCreated), proCreated),
                receipt(.app(account: new, createdMs: created), created),
            ]
            user.entitlements = [
                premium(true, chain.lastExpiry, chain, created),
                row("pro", true, nil, Catalog.pro.id, proID, proCreated),
            ]

        case .proratedRefund:
            // A yearly period, months in; Apple refunded the unused part of it (a percentage in tens).
            let yearly = Catalog.premiumYearly
            let plan = planActive(&rng, yearly, renewals: 0...2, position: 0.1...0.6)
            let account = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60))
            let chain = subscribe(account, yearly, start: plan.start, periods: plan.periods)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            let refundedAt = chain.lastPurchase + fraction(&rng, 0.02...0.09, of: chain.lastExpiry - chain.lastPurchase)
            let reason = rng.int(in: 0...1)
            // Multiples of 10 %: every amount stays a whole number of milliunits (49.99 × 30 % = 14.997).
            let percentage = rng.int(in: 1...9) * 10_000
            updateTransaction(account, chain.transactionIDs.last!) {
                $0.refund = WorldTransaction.Refund(
                    at: refundedAt, reason: reason, reversedAt: nil, percentage: percentage)
            }
            updateRenewal(chain) { $0.autoRenewStatus = false }
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            user.entitlements = [premium(true, chain.lastExpiry, chain, created, product: yearly)]

        case .twoChainsLapsedAndGrace, .twoChainsActiveAndGrace:
            // Chain A: the later expiry, lapsed (auto-renew off) or still active. Chain B, another Apple
            // account: its renewal failed before A's expiry and its grace period runs past A's end.
            let lapsed = user.scenario == .twoChainsLapsedAndGrace
            let firstExpiry =
                lapsed ? asOf - fraction(&rng, 0.05...0.3, of: grace) : asOf + fraction(&rng, 0.05...0.3, of: grace)
            let failedExpiry = (lapsed ? firstExpiry : asOf) - fraction(&rng, 0.1...0.4, of: grace)
            let firstPeriods = rng.int(in: 1...5)
            let firstStart = firstExpiry - Int64(firstPeriods) * month
            let first = openAccount(&rng, environment: home, downloadedAt: firstStart - days(&rng, 1...60))
            let chainA = subscribe(first, monthly, start: firstStart, periods: firstPeriods)
            if lapsed { cancelAutoRenew(chainA) }
            let secondPeriods = rng.int(in: 1...5)
            let secondStart = failedExpiry - Int64(secondPeriods) * month
            let second = openAccount(&rng, environment: home, downloadedAt: secondStart - days(&rng, 1...60))
            let chainB = subscribe(second, monthly, start: secondStart, periods: secondPeriods)
            failBilling(chainB, grace: true)
            let firstCreated = shortlyAfter(&rng, chainA.lastPurchase, in: home)
            let secondCreated = shortlyAfter(&rng, chainB.lastPurchase, in: home)
            user.receipts = [
                receipt(.app(account: first, createdMs: firstCreated), firstCreated),
                receipt(.app(account: second, createdMs: secondCreated), secondCreated),
            ]
            // The app follows chain A only, and kept its row active to A's expiry.
            user.entitlements = [premium(true, chainA.lastExpiry, chainA, max(firstCreated, secondCreated))]

        case .craftedTransactionID:
            // Someone handed the app an iOS 6 receipt of their own making, and the app granted a year.
            let purchase = asOf - days(&rng, 5...200)
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...60))
            let created = shortlyAfter(&rng, purchase, in: home)
            user.receipts = [receipt(.craftedTransaction(account: account, purchaseMs: purchase), created)]
            user.entitlements = [
                row(
                    "premium", true, purchase + SubscriptionClock.length(.year, in: home), Catalog.premiumYearly.id,
                    nil, created)
            ]

        default:
            preconditionFailure("\(user.scenario) is not one of issue 25's receipt scenarios")
        }
    }
}
