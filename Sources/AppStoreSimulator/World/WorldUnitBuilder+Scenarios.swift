import AppStoreReceipts

/// The users of each `WorldScenario`: their accounts, purchases, receipts and entitlement rows.
///
/// Every instant is placed relative to `asOf`, and subscription timings are fractions of the billing
/// period of the account's environment, so the same code builds a production world (30-day months) and
/// a staging one (5-minute sandbox months). Comments state what the app's database got wrong and why a
/// correct job notices; `WorldScenario.intended` lists the outcome.
extension WorldUnitBuilder {
    private typealias Catalog = WorldCatalog

    mutating func addUser(index: Int, scenario: WorldScenario, rng: inout SplitMix64) {
        var user = WorldUser(
            index: index, id: WorldUser.id(forIndex: index), scenario: scenario,
            isSandboxTester: false, receipts: [], entitlements: [])
        let monthly = Catalog.premiumMonthly
        let month = SubscriptionClock.length(.month, in: home)

        switch scenario {
        case .subscriptionActive, .subscriptionYearly, .subscriptionTrial, .subscriptionAutoRenewOff,
            .subscriptionDowngradePending, .purchaseNotGranted, .subscriptionRowTooLong, .familyShared:
            let yearly = scenario == .subscriptionYearly || scenario == .subscriptionDowngradePending
            let product = yearly ? Catalog.premiumYearly : monthly
            let trial = scenario == .subscriptionTrial
            let plan = planActive(&rng, product, renewals: trial ? 0...0 : (yearly ? 0...2 : 0...11))
            let account = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60))
            let chain = subscribe(
                account, product, start: plan.start, periods: plan.periods, trialFirst: trial,
                ownership: scenario == .familyShared ? .familyShared : .purchased)
            if scenario == .subscriptionAutoRenewOff { cancelAutoRenew(chain) }
            // A downgrade takes effect at the next renewal: access is unchanged until then.
            if scenario == .subscriptionDowngradePending { updateRenewal(chain) { $0.autoRenewProductID = monthly.id } }
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            switch scenario {
            case .purchaseNotGranted, .familyShared:
                break  // the app never granted it (a lost callback; a family member the app did not expect)
            case .subscriptionRowTooLong:
                // The app granted a year for a month.
                user.entitlements = [
                    premium(true, chain.lastExpiry + 335 * SubscriptionClock.millisecondsPerDay, chain, created)
                ]
            default:
                user.entitlements = [premium(true, chain.lastExpiry, chain, created, product: product)]
            }
            user.isSandboxTester = scenario == .subscriptionActive && rng.chance(0.02)

        case .subscriptionExpiredInactiveRow, .expiredStillActive:
            let chain = expiredMonthly(&rng, periods: 1...7)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [receipt(.app(account: chain.account, createdMs: created), created)]
            user.entitlements = [premium(scenario == .expiredStillActive, chain.lastExpiry, chain, created)]

        case .missedRenewal, .missedRenewalInactiveRow, .ios6MissedRenewal:
            // The app last heard of the subscription a few renewals ago (lost notifications).
            let plan = planActive(&rng, monthly, renewals: 2...8)
            let account = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: plan.start, periods: plan.periods)
            let known = plan.periods - 1 - rng.int(in: 1...min(3, plan.periods - 1))
            let created = shortlyAfter(&rng, chain.purchases[known], in: home)
            let stored: WorldReceipt =
                scenario == .ios6MissedRenewal
                ? .transaction(account: account, transactionID: chain.transactionIDs[known])
                : .app(account: account, createdMs: created)
            user.receipts = [receipt(stored, created)]
            user.entitlements = [premium(scenario != .missedRenewalInactiveRow, chain.expiries[known], chain, created)]

        case .gracePeriod, .gracePeriodInactiveRow, .gracePeriodRowTooLong, .billingRetryWithoutGrace, .gracePeriodOver:
            let grace = SubscriptionClock.gracePeriod(in: home)
            let expiry: Int64
            switch scenario {
            case .billingRetryWithoutGrace: expiry = asOf - fraction(&rng, 0.05...0.9, of: month)
            case .gracePeriodOver: expiry = asOf - fraction(&rng, 1.1...1.8, of: grace)
            default: expiry = asOf - fraction(&rng, 0.1...0.8, of: grace)
            }
            let periods = rng.int(in: 2...9)
            let start = expiry - Int64(periods) * month
            let account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: start, periods: periods)
            failBilling(chain, grace: scenario != .billingRetryWithoutGrace)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            switch scenario {
            case .gracePeriodInactiveRow:
                user.entitlements = [premium(false, expiry, chain, created)]
            case .gracePeriodRowTooLong:
                // The app assumed the renewal went through and extended by a whole period.
                user.entitlements = [premium(true, expiry + month, chain, created)]
            case .gracePeriodOver:
                // The app kept access to the end of the grace period, which has passed.
                user.entitlements = [premium(true, expiry + grace, chain, created)]
            default:
                user.entitlements = [premium(true, expiry, chain, created)]
            }

        case .refundedSubscription, .familySharingRevoked, .refundReversed:
            let plan = planActive(&rng, monthly, renewals: 1...8, position: 0.3...0.95)
            let account = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60))
            let chain = subscribe(
                account, monthly, start: plan.start, periods: plan.periods,
                ownership: scenario == .familySharingRevoked ? .familyShared : .purchased)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            // After the receipt was sent, Apple refunded the current period (or the family organizer
            // stopped sharing: a FAMILY_REVOKE of this FAMILY_SHARED copy, reason 0), and maybe reversed it.
            let refundedAt = chain.lastPurchase + fraction(&rng, 0.05...0.2, of: month)
            let reversedAt = scenario == .refundReversed ? refundedAt + fraction(&rng, 0.02...0.05, of: month) : nil
            let reason = scenario == .familySharingRevoked ? 0 : rng.int(in: 0...1)
            updateTransaction(account, chain.transactionIDs.last!) {
                $0.refund = WorldTransaction.Refund(at: refundedAt, reason: reason, reversedAt: reversedAt)
            }
            if reversedAt == nil { updateRenewal(chain) { $0.autoRenewStatus = false } }
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            // After a reversed refund the app had already revoked (it heard of the refund, not of the reversal).
            user.entitlements = [premium(scenario != .refundReversed, chain.lastExpiry, chain, created)]

        case .upgradedToYearly:
            // Mid-period, after the receipt was sent, the customer upgraded to the yearly plan: the monthly
            // period is cancelled with is_upgraded, the yearly period continues the same chain.
            let upgradeAt = asOf - fraction(&rng, 0.05...0.9, of: month)
            let lastMonthly = upgradeAt - fraction(&rng, 0.1...0.9, of: month)
            upgradeToYearly(&user, &rng, lastMonthly: lastMonthly, periods: 2...7, upgradeAt: upgradeAt)

        case .proActive, .proNotGranted, .proRowWithExpiry, .otherSourceBesideReceipts:
            let purchase = asOf - days(&rng, 1...700)
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.pro, at: purchase)
            let created = shortlyAfter(&rng, purchase, in: home)
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            switch scenario {
            case .proNotGranted:
                break
            case .proRowWithExpiry:
                // A non-consumable never expires; the app stored an expiry anyway.
                user.entitlements = [
                    row(
                        "pro", true, purchase + 365 * SubscriptionClock.millisecondsPerDay,
                        Catalog.pro.id, id, created)
                ]
            case .otherSourceBesideReceipts:
                // Support granted premium by hand: not the job's to touch, whatever Apple says.
                user.entitlements = [
                    row("premium", true, asOf + days(&rng, 5...90), nil, nil, created, source: "support"),
                    row("pro", true, nil, Catalog.pro.id, id, created),
                ]
            default:
                user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, created)]
            }

        case .proRefunded, .proRefundReversed:
            let purchase = asOf - days(&rng, scenario == .proRefunded ? 10...400 : 20...400)
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.pro, at: purchase)
            let created = shortlyAfter(&rng, purchase, in: home)
            let refundedAt = purchase + days(&rng, scenario == .proRefunded ? 1...9 : 1...5)
            let reversedAt = scenario == .proRefundReversed ? refundedAt + days(&rng, 1...5) : nil
            let reason = rng.int(in: 0...1)
            updateTransaction(account, id) {
                $0.refund = WorldTransaction.Refund(at: refundedAt, reason: reason, reversedAt: reversedAt)
            }
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            user.entitlements = [row("pro", scenario == .proRefunded, nil, Catalog.pro.id, id, created)]

        case .seasonPassActive, .seasonPassNotGranted, .seasonPassRowTooLong, .seasonPassExpiredInactiveRow,
            .seasonPassExpiredStillActive, .seasonPassRefunded:
            let expired = scenario == .seasonPassExpiredInactiveRow || scenario == .seasonPassExpiredStillActive
            let purchase = asOf - days(&rng, expired ? 95...400 : (scenario == .seasonPassRefunded ? 10...80 : 1...80))
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.seasonPass, at: purchase)
            let created = shortlyAfter(&rng, purchase, in: home)
            let ends = purchase + Int64(Catalog.seasonPass.durationDays!) * SubscriptionClock.millisecondsPerDay
            if scenario == .seasonPassRefunded {
                let refundedAt = purchase + days(&rng, 1...5)
                let reason = rng.int(in: 0...1)
                updateTransaction(account, id) {
                    $0.refund = WorldTransaction.Refund(at: refundedAt, reason: reason, reversedAt: nil)
                }
            }
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            let pass = Catalog.seasonPass.id
            switch scenario {
            case .seasonPassNotGranted: break
            case .seasonPassRowTooLong:
                user.entitlements = [
                    row("season_pass", true, ends + 30 * SubscriptionClock.millisecondsPerDay, pass, id, created)
                ]
            case .seasonPassExpiredInactiveRow: user.entitlements = [row("season_pass", false, ends, pass, id, created)]
            case .seasonPassExpiredStillActive: user.entitlements = [row("season_pass", true, nil, pass, id, created)]
            default: user.entitlements = [row("season_pass", true, ends, pass, id, created)]
            }

        case .coinsOnly, .coinsRefunded:
            var purchases = (0..<(scenario == .coinsOnly ? rng.int(in: 1...3) : 1)).map { _ in
                asOf - days(&rng, 10...300)
            }
            purchases.sort()
            let account = openAccount(&rng, environment: home, downloadedAt: purchases[0] - days(&rng, 0...30))
            var ids: [String] = []
            for purchase in purchases {
                ids.append(buy(account, Catalog.coins, at: purchase, quantity: rng.int(in: 1...3)))
            }
            let created = shortlyAfter(&rng, purchases.last!, in: home)
            if scenario == .coinsRefunded {
                let refundedAt = purchases[0] + days(&rng, 1...5)
                updateTransaction(account, ids[0]) {
                    $0.refund = WorldTransaction.Refund(at: refundedAt, reason: 1, reversedAt: nil)
                }
            }
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]

        case .severalReceipts, .severalReceiptsMissingGrant:
            // An old receipt from when only pro was bought, and a newer one with the subscription.
            let proPurchase = asOf - days(&rng, 250...600)
            let plan = planActive(&rng, monthly, renewals: 0...5)
            let account = openAccount(&rng, environment: home, downloadedAt: proPurchase - days(&rng, 0...60))
            let id = buy(account, Catalog.pro, at: proPurchase)
            let firstCreated = shortlyAfter(&rng, proPurchase, in: home)
            let chain = subscribe(account, monthly, start: plan.start, periods: plan.periods)
            let secondCreated = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [
                receipt(.app(account: account, createdMs: firstCreated), firstCreated),
                receipt(.app(account: account, createdMs: secondCreated), secondCreated),
            ]
            user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, firstCreated)]
            if scenario == .severalReceipts {
                user.entitlements.insert(premium(true, chain.lastExpiry, chain, secondCreated), at: 0)
            }

        case .emptyReceiptNoRow, .emptyReceiptWithRow:
            // A valid receipt with nothing bought; with a row, the app granted premium on it anyway.
            let created = asOf - days(&rng, 1...100)
            let account = openAccount(&rng, environment: home, downloadedAt: created - days(&rng, 0...30))
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            if scenario == .emptyReceiptWithRow {
                user.entitlements = [row("premium", true, asOf + days(&rng, 5...25), monthly.id, nil, created)]
            }

        case .unknownProduct:
            // The App Store sells a bundle the app's products table does not list.
            let proPurchase = asOf - days(&rng, 30...400)
            let promoPurchase = proPurchase + days(&rng, 1...20)
            let account = openAccount(&rng, environment: home, downloadedAt: proPurchase - days(&rng, 0...60))
            let id = buy(account, Catalog.pro, at: proPurchase)
            buy(account, Catalog.promoBundle, at: promoPurchase)
            let created = shortlyAfter(&rng, promoPurchase, in: home)
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, created)]

        case .otherEnvironmentReceipt, .otherEnvironmentTester, .otherEnvironmentNoRow:
            // A receipt of the other environment (a TestFlight or App Review purchase in production).
            let purchase = asOf - days(&rng, 1...60)
            let account = openAccount(&rng, environment: home.other, downloadedAt: purchase - days(&rng, 0...30))
            let product = scenario == .otherEnvironmentNoRow ? Catalog.coins : Catalog.pro
            let id = buy(account, product, at: purchase)
            let created = shortlyAfter(&rng, purchase, in: home.other)
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            if scenario == .otherEnvironmentReceipt {
                user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, created)]
            }
            user.isSandboxTester = scenario == .otherEnvironmentTester

        case .otherBundle:
            let plan = planActive(&rng, monthly, renewals: 0...6)
            let account = openAccount(
                &rng, environment: home, bundleID: Catalog.cloneBundleID,
                downloadedAt: plan.start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: plan.start, periods: plan.periods)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [receipt(.app(account: account, createdMs: created), created)]
            user.entitlements = [premium(true, chain.lastExpiry, chain, created)]

        case .tamperedReceipt, .deletedAccount, .xcodeReceipt, .garbageReceipt, .emptyReceiptData,
            .notBase64ReceiptData, .appleInternalError:
            addUnverifiableReceipts(to: &user, rng: &rng)

        case .knownIDNotFound, .deletedAccountLifetime, .proratedRefund, .twoChainsLapsedAndGrace,
            .twoChainsActiveAndGrace, .craftedTransactionID:
            addAppleReadings(to: &user, rng: &rng)

        case .upgradedDuringNight:
            addUpgradeDuringNight(to: &user, rng: &rng)

        case .storeKit2Active, .storeKit2NotGranted, .storeKit2ExpiredSince, .storeKit2RowLonger, .storeKit2Refunded,
            .storeKit2Tampered, .storeKit2OtherEnvironment, .storeKit2Lifetime, .storeKit2OtherBundle,
            .storeKit2StaleAfterRevoke:
            addStoreKit2Rows(to: &user, rng: &rng)

        case .storeKit2StaleRefundReversed:
            addStaleRefundReversedRows(to: &user, rng: &rng)
        case .appleSignedIDLost, .storeKit2AppleSignedIDLost:
            addSignedAccess(to: &user, rng: &rng)

        case .ios6Expired, .ios6InSync:
            let chain: Chain
            let account: Int
            if scenario == .ios6Expired {
                let expiry = asOf - fraction(&rng, 0.1...3.0, of: month)
                let periods = rng.int(in: 1...7)
                let start = expiry - Int64(periods) * month
                account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
                chain = subscribe(account, monthly, start: start, periods: periods)
                cancelAutoRenew(chain)
            } else {
                let plan = planActive(&rng, monthly, renewals: 0...8)
                account = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60))
                chain = subscribe(account, monthly, start: plan.start, periods: plan.periods)
            }
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [
                receipt(.transaction(account: account, transactionID: chain.transactionIDs.last!), created)
            ]
            user.entitlements = [premium(true, chain.lastExpiry, chain, created)]

        case .duplicateReceipts:
            // The app stored the same receipt twice; it carries a refunded coin purchase.
            let plan = planActive(&rng, monthly, renewals: 0...6)
            let coinPurchase = plan.start - days(&rng, 2...10)
            let account = openAccount(&rng, environment: home, downloadedAt: coinPurchase - days(&rng, 0...30))
            let coin = buy(account, Catalog.coins, at: coinPurchase)
            let refundedAt = coinPurchase + days(&rng, 0.5...1.0)
            updateTransaction(account, coin) {
                $0.refund = WorldTransaction.Refund(at: refundedAt, reason: 0, reversedAt: nil)
            }
            let chain = subscribe(account, monthly, start: plan.start, periods: plan.periods)
            let created = shortlyAfter(&rng, chain.lastPurchase, in: home)
            let slot = issue(.app(account: account, createdMs: created))
            user.receipts = [
                WorldUser.ReceiptRow(slot: slot, createdMs: created),
                WorldUser.ReceiptRow(slot: slot, createdMs: min(asOf, created + 1000)),
            ]
            user.entitlements = [premium(true, chain.lastExpiry, chain, created)]

        case .entitlementWithoutReceipt:
            let updated = asOf - days(&rng, 1...200)
            user.entitlements = [row("premium", true, asOf + days(&rng, 1...300), monthly.id, nil, updated)]

        case .otherSourceOnly:
            let updated = asOf - days(&rng, 1...200)
            user.entitlements = [row("premium", true, asOf + days(&rng, 1...60), nil, nil, updated, source: "promo")]

        case .noReceiptInactiveRow:
            let updated = asOf - days(&rng, 1...200)
            user.entitlements = [row("pro", false, nil, Catalog.pro.id, nil, updated)]

        case .sharedTransactionOwner, .sharedTransactionRestored:
            preconditionFailure("shared users are built in pairs by addSharedPair")
        }
        users.append(user)
    }

    /// Two app accounts holding receipts of one Apple ID: the second restored the purchases on its own
    /// login, so one original transaction id is on receipts of two users (`shared_transaction`).
    mutating func addSharedPair(firstIndex: Int, rng: inout SplitMix64) {
        let proPurchase = asOf - days(&rng, 30...500)
        let plan = planActive(&rng, Catalog.premiumMonthly, renewals: 0...11)
        let account = openAccount(
            &rng, environment: home, downloadedAt: min(proPurchase, plan.start) - days(&rng, 1...30))
        let proID = buy(account, Catalog.pro, at: proPurchase)
        let chain = subscribe(account, Catalog.premiumMonthly, start: plan.start, periods: plan.periods)
        let firstCreated = shortlyAfter(&rng, max(proPurchase, chain.lastPurchase), in: home)
        let secondCreated = shortlyAfter(&rng, firstCreated, in: home)
        let firstSlot = issue(.app(account: account, createdMs: firstCreated))
        let secondSlot = issue(.app(account: account, createdMs: secondCreated))
        users.append(
            WorldUser(
                index: firstIndex, id: WorldUser.id(forIndex: firstIndex), scenario: .sharedTransactionOwner,
                isSandboxTester: false, receipts: [WorldUser.ReceiptRow(slot: firstSlot, createdMs: firstCreated)],
                entitlements: [
                    premium(true, chain.lastExpiry, chain, firstCreated),
                    row("pro", true, nil, WorldCatalog.pro.id, proID, firstCreated),
                ]))
        // The restoring account got pro from the app's restore flow, but not the subscription.
        users.append(
            WorldUser(
                index: firstIndex + 1, id: WorldUser.id(forIndex: firstIndex + 1), scenario: .sharedTransactionRestored,
                isSandboxTester: false, receipts: [WorldUser.ReceiptRow(slot: secondSlot, createdMs: secondCreated)],
                entitlements: [row("pro", true, nil, WorldCatalog.pro.id, proID, secondCreated)]))
    }
}
