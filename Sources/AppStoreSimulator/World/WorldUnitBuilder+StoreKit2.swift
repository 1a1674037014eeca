import AppStoreReceipts

/// The StoreKit 2 users (`WorldScenario.isStoreKit2`): Apple accounts and purchases like anyone's, but
/// the row the app stored is the signed transaction (JWS) StoreKit 2 handed it, signed when it arrived.
///
/// The job judges such a row locally, as evidence as of its `signedDate` (CONTRACT §9): it proves what
/// was true then, never what happened since. So the scenarios set the app's rows against that limit:
/// renewals the JWS cannot know of, a row longer than it proves, and the one revoke it can cause itself,
/// a refund it carries.
extension WorldUnitBuilder {
    private typealias Catalog = WorldCatalog

    mutating func addStoreKit2Rows(to user: inout WorldUser, rng: inout SplitMix64) {
        let monthly = Catalog.premiumMonthly
        switch user.scenario {
        case .storeKit2Active, .storeKit2NotGranted, .storeKit2RowLonger:
            // The app stored the JWS of the current period, as `Transaction.updates` delivered it.
            let plan = planActive(&rng, monthly, renewals: 0...11)
            let account = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: plan.start, periods: plan.periods)
            let signed = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [signedRow(account, chain.transactionIDs.last!, signed)]
            switch user.scenario {
            case .storeKit2NotGranted:
                break
            case .storeKit2RowLonger:
                // The app adds a few days of its own; the JWS proves less, but nothing that shortens.
                user.entitlements = [premium(true, chain.lastExpiry + days(&rng, 1...10), chain, signed)]
            default:
                user.entitlements = [premium(true, chain.lastExpiry, chain, signed)]
            }

        case .storeKit2ExpiredSince:
            // At least two renewals since the stored period: the app followed them and kept the row up to
            // date, but kept the first JWS. Its period ended long before asOf.
            let plan = planActive(&rng, monthly, renewals: 2...8)
            let account = openAccount(&rng, environment: home, downloadedAt: plan.start - days(&rng, 1...60))
            let chain = subscribe(account, monthly, start: plan.start, periods: plan.periods)
            let known = rng.int(in: 0...(plan.periods - 3))
            let signed = shortlyAfter(&rng, chain.purchases[known], in: home)
            user.receipts = [signedRow(account, chain.transactionIDs[known], signed)]
            user.entitlements = [premium(true, chain.lastExpiry, chain, signed)]

        case .storeKit2Refunded, .storeKit2OtherEnvironment, .storeKit2Lifetime:
            let refunded = user.scenario == .storeKit2Refunded
            // A purchase in the other environment: a TestFlight or App Review purchase in production.
            let environment = user.scenario == .storeKit2OtherEnvironment ? home.other : home
            let purchase = asOf - days(&rng, refunded ? 10...400 : (environment == home ? 1...700 : 1...60))
            let account = openAccount(&rng, environment: environment, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.pro, at: purchase)
            let granted = shortlyAfter(&rng, purchase, in: environment)
            var signed = granted
            if refunded {
                // The app kept the JWS `Transaction.updates` delivered after the refund, and ignored it.
                let refundedAt = purchase + days(&rng, 1...9)
                let reason = rng.int(in: 0...1)
                updateTransaction(account, id) {
                    $0.refund = WorldTransaction.Refund(at: refundedAt, reason: reason, reversedAt: nil)
                }
                signed = shortlyAfter(&rng, refundedAt, in: environment)
            }
            user.receipts = [signedRow(account, id, signed)]
            if user.scenario != .storeKit2Lifetime {
                user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, granted)]
            }

        case .storeKit2OtherBundle:
            // The white-label clone's pro purchase: signed by Apple, but for another app than ours.
            let purchase = asOf - days(&rng, 1...400)
            let account = openAccount(
                &rng, environment: home, bundleID: Catalog.cloneBundleID, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.pro, at: purchase)
            let signed = shortlyAfter(&rng, purchase, in: home)
            user.receipts = [signedRow(account, id, signed)]
            user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, signed)]

        case .storeKit2StaleAfterRevoke:
            // The JWS of the purchase; Apple refunded it days later, and the app's own server notification
            // handler revoked the row shortly after (its updated_at): the JWS predates the app's last word.
            let purchase = asOf - days(&rng, 20...400)
            let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...90))
            let id = buy(account, Catalog.pro, at: purchase)
            let signed = shortlyAfter(&rng, purchase, in: home)
            let refundedAt = purchase + days(&rng, 2...15)
            let reason = rng.int(in: 0...1)
            updateTransaction(account, id) {
                $0.refund = WorldTransaction.Refund(at: refundedAt, reason: reason, reversedAt: nil)
            }
            let revokedAt = min(asOf, refundedAt + days(&rng, 0.01...1.0))
            user.receipts = [signedRow(account, id, signed)]
            user.entitlements = [row("pro", false, nil, Catalog.pro.id, id, revokedAt)]

        case .storeKit2Tampered:
            // The subscription lapsed; the customer added a year to the stored JWS's expiresDate, and the
            // app, which never checked the signature, extended the row to match.
            let chain = expiredMonthly(&rng, periods: 1...5)
            let signed = shortlyAfter(&rng, chain.lastPurchase, in: home)
            user.receipts = [signedRow(chain.account, chain.transactionIDs.last!, signed, tampered: true)]
            let forgedExpiry = chain.lastExpiry + 365 * SubscriptionClock.millisecondsPerDay
            user.entitlements = [premium(true, forgedExpiry, chain, signed)]

        default:
            preconditionFailure("\(user.scenario) is not a StoreKit 2 scenario")
        }
    }

    /// A `receipts` row holding the JWS of transaction `id` of `account`, signed (and sent) at `signed`.
    mutating func signedRow(
        _ account: Int, _ id: String, _ signed: Int64, tampered: Bool = false
    ) -> WorldUser.ReceiptRow {
        receipt(.signedTransaction(account: account, transactionID: id, signedMs: signed, tampered: tampered), signed)
    }
}
