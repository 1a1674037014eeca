import AppStoreReceipts

/// Receipts no App Store issued, made to look like one: what `WorldReceipt.craftedTransaction` holds.
extension WorldUnit {
    /// The transaction id of a crafted receipt of `account`: twenty digits starting with 9, so above
    /// `UInt64.max` and any id Apple issues (Apple's ids are 64-bit), yet all decimal digits: a client
    /// that checks only the characters asks Apple about it, and the Server API refuses it (4000006).
    public func craftedTransactionID(account: Int) -> String {
        let digits = String(UInt64(index) * 10 + UInt64(account))
        return "9" + String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    /// The iOS 6 transaction receipt of a crafted yearly subscription bought at `purchaseMs` in
    /// `account`'s app: well formed, decodable, and unknown to Apple.
    func craftedTransactionReceipt(account: Int, purchaseMs: Int64) -> LocalReceipt {
        let owner = accounts[account]
        let id = craftedTransactionID(account: account)
        let yearly = WorldCatalog.premiumYearly
        return Self.transactionReceipt(
            of: owner,
            LocalReceipt.InAppPurchase(
                quantity: 1, productID: yearly.id, transactionID: id, purchaseDate: Self.date(purchaseMs),
                originalTransactionID: id, originalPurchaseDate: Self.date(purchaseMs),
                expiresDate: Self.date(purchaseMs + SubscriptionClock.length(.year, in: owner.environment)),
                webOrderLineItemID: String(WorldUnitBuilder.webOrderBase - 2), isTrialPeriod: false,
                isInIntroOfferPeriod: false))
    }
}
