import AppStoreReceipts

/// The small builders the scenarios share: a chain active at `asOf`, an expired one, an upgrade to the
/// yearly plan, a receipt row, entitlement rows.
extension WorldUnitBuilder {
    /// A chain active at `asOf`: `renewals` renewals after the first purchase, the current period begun a
    /// `position` fraction of a period ago.
    func planActive(
        _ rng: inout SplitMix64,
        _ product: WorldProduct,
        renewals: ClosedRange<Int>,
        position: ClosedRange<Double> = 0.05...0.95
    ) -> (start: Int64, periods: Int) {
        let length = SubscriptionClock.length(product.period!, in: home)
        let renewalCount = rng.int(in: renewals)
        let lastPurchase = asOf - fraction(&rng, position, of: length)
        return (lastPurchase - Int64(renewalCount) * length, renewalCount + 1)
    }

    /// A premium monthly chain of `periods` periods in a new account that ran out before `asOf` (a tenth
    /// of a month to three months ago), the customer having turned auto-renew off.
    mutating func expiredMonthly(_ rng: inout SplitMix64, periods: ClosedRange<Int>) -> Chain {
        let month = SubscriptionClock.length(.month, in: home)
        let expiry = asOf - fraction(&rng, 0.1...3.0, of: month)
        let count = rng.int(in: periods)
        let start = expiry - Int64(count) * month
        let account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
        let chain = subscribe(account, WorldCatalog.premiumMonthly, start: start, periods: count)
        cancelAutoRenew(chain)
        return chain
    }

    /// A premium monthly chain in a new account whose last of `periods` periods began at `lastMonthly`,
    /// upgraded to the yearly plan at `upgradeAt` (the monthly period cancelled with is_upgraded, the yearly
    /// period continuing the chain); `user`'s receipt sent shortly after the last monthly purchase, and
    /// the app's row granting to the monthly period's expiry. Returns the account.
    @discardableResult
    mutating func upgradeToYearly(
        _ user: inout WorldUser, _ rng: inout SplitMix64, lastMonthly: Int64, periods: ClosedRange<Int>,
        upgradeAt: Int64
    ) -> Int {
        let monthly = WorldCatalog.premiumMonthly
        let month = SubscriptionClock.length(.month, in: home)
        let count = rng.int(in: periods)
        let start = lastMonthly - Int64(count - 1) * month
        let account = openAccount(&rng, environment: home, downloadedAt: start - days(&rng, 1...60))
        var chain = subscribe(account, monthly, start: start, periods: count)
        let created = shortlyAfter(&rng, lastMonthly, in: home)
        let monthlyExpiry = chain.lastExpiry
        updateTransaction(account, chain.transactionIDs.last!) { $0.upgradedAt = upgradeAt }
        continueChain(&chain, with: WorldCatalog.premiumYearly, at: upgradeAt)
        user.receipts = [receipt(.app(account: account, createdMs: created), created)]
        user.entitlements = [row("premium", true, monthlyExpiry, monthly.id, chain.originalTransactionID, created)]
        return account
    }

    mutating func receipt(_ content: WorldReceipt, _ created: Int64) -> WorldUser.ReceiptRow {
        WorldUser.ReceiptRow(slot: issue(content), createdMs: created)
    }

    func row(
        _ entitlement: String, _ active: Bool, _ expires: Int64?, _ product: String?, _ original: String?,
        _ updated: Int64, source: String = "app_store"
    ) -> WorldUser.EntitlementRow {
        WorldUser.EntitlementRow(
            entitlement: entitlement, active: active, expiresMs: expires, productID: product,
            originalTransactionID: original, source: source, updatedMs: updated)
    }

    func premium(
        _ active: Bool, _ expires: Int64?, _ chain: Chain, _ updated: Int64,
        product: WorldProduct = WorldCatalog.premiumMonthly
    ) -> WorldUser.EntitlementRow {
        row("premium", active, expires, product.id, chain.originalTransactionID, updated)
    }
}
