import AppStoreReceipts

/// Issue 35, point 3 (the fresher evidence wins): a user whose rows report one purchase as of different
/// instants. The older report must not outrank the newer one.
extension WorldUnitBuilder {
    /// `storeKit2StaleRefundReversed`: a pro purchase refunded, the JWS `Transaction.updates` delivered
    /// after the refund stored beside the app receipt of the purchase; Apple reversed the refund days
    /// later and the app restored the row (active, `updated_at` at the reversal). The stale JWS still
    /// carries `revocationDate`; Apple's answer now (verifyReceipt for the receipt; the Server API for
    /// both rows) has none.
    mutating func addStaleRefundReversedRows(to user: inout WorldUser, rng: inout SplitMix64) {
        let purchase = asOf - days(&rng, 20...400)
        let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...90))
        let id = buy(account, WorldCatalog.pro, at: purchase)
        let created = shortlyAfter(&rng, purchase, in: home)
        let refundedAt = purchase + days(&rng, 2...10)
        let signed = shortlyAfter(&rng, refundedAt, in: home)
        let reversedAt = min(asOf - 1000, signed + days(&rng, 1...5))
        let reason = rng.int(in: 0...1)
        updateTransaction(account, id) {
            $0.refund = WorldTransaction.Refund(at: refundedAt, reason: reason, reversedAt: reversedAt)
        }
        // The stale JWS is the newer row: the one a merge by row order would believe.
        user.receipts = [receipt(.app(account: account, createdMs: created), created), signedRow(account, id, signed)]
        user.entitlements = [
            row("pro", true, nil, WorldCatalog.pro.id, id, min(asOf, reversedAt + days(&rng, 0.01...1.0)))
        ]
    }
}
