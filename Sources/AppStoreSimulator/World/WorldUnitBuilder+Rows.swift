import AppStoreReceipts

/// The small builders the scenarios share: a chain active at `asOf`, a receipt row, entitlement rows.
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
