import AppStoreReceipts

/// The payloads Apple signs about an account (research/server-api.md §6): a transaction
/// (`JWSTransactionDecodedPayload`) as seen at one instant, and a chain's renewal info
/// (`JWSRenewalInfoDecodedPayload`). JSON written by hand, keys in a fixed order, so a payload is a pure
/// function of the world and its signed form can be cached by id.
///
/// Used for StoreKit 2 rows (seen at their `signedDate`) and for the Server API's answers (seen at `asOf`).
extension WorldAccount {
    /// The payload of `transaction` as Apple reports it at `instant`, signed at `signedMs`. `expiryShift`
    /// edits `expiresDate` (a tampered row's forgery); 0 for anything Apple signs.
    func transactionPayload(
        _ transaction: WorldTransaction, seenAt instant: Int64, signedMs: Int64, appTransactionID: String,
        expiryShift: Int64 = 0
    ) -> [UInt8] {
        let view = transaction.view(at: instant)
        let kind = WorldCatalog.product(transaction.productID)?.kind ?? .nonConsumable
        var json = PayloadJSON()
        json.text("transactionId", transaction.transactionID)
        json.text("originalTransactionId", transaction.originalTransactionID)
        if let webOrder = transaction.webOrderLineItemID { json.text("webOrderLineItemId", webOrder) }
        json.text("bundleId", bundleID)
        json.text("productId", transaction.productID)
        if kind == .autoRenewable { json.text("subscriptionGroupIdentifier", WorldCatalog.premiumGroupID) }
        json.number("purchaseDate", transaction.purchaseMs)
        json.number("originalPurchaseDate", transaction.originalPurchaseMs)
        if let expires = transaction.expiresMs { json.number("expiresDate", expires + expiryShift) }
        json.number("quantity", Int64(transaction.quantity))
        json.text("type", WorldUnit.signedType(kind))
        json.text("inAppOwnershipType", transaction.ownership.rawValue)
        json.number("signedDate", signedMs)
        if let revoked = view.cancellationMs {
            // An upgrade ends a period too (StoreKit 2 sets revocationDate beside isUpgraded), with no reason.
            json.number("revocationDate", revoked)
            if let type = view.revocationType {
                json.number("revocationReason", Int64(view.cancellationReason ?? 0))
                json.text("revocationType", type)
                if let percentage = view.revocationPercentage { json.number("revocationPercentage", Int64(percentage)) }
            }
        }
        if view.isUpgraded { json.literal("isUpgraded", "true") }
        if transaction.isTrialPeriod {
            json.number("offerType", 1)
            json.text("offerDiscountType", "FREE_TRIAL")
        }
        json.text("environment", signedEnvironment)
        let isFirst = transaction.transactionID == transaction.originalTransactionID
        json.text("transactionReason", isFirst ? "PURCHASE" : "RENEWAL")
        json.text("storefront", "USA")
        json.text("storefrontId", "143441")
        json.number("price", WorldUnit.priceMilliunits(of: transaction))
        json.text("currency", "USD")
        json.text("appTransactionId", appTransactionID)
        return json.bytes
    }

    /// The renewal info of the chain whose newest period is `last`, at `asOf`: what `pending_renewal_info`
    /// says for it (`renewal`), in the Server API's fields.
    func renewalPayload(
        _ renewal: RenewalInfo, last: WorldTransaction, asOf: Int64, appTransactionID: String
    ) -> [UInt8] {
        var json = PayloadJSON()
        json.text("originalTransactionId", renewal.originalTransactionID)
        json.text("autoRenewProductId", renewal.autoRenewProductID)
        json.text("productId", renewal.productID)
        json.number("autoRenewStatus", renewal.autoRenewStatus ? 1 : 0)
        if let intent = renewal.expirationIntent { json.number("expirationIntent", Int64(intent)) }
        json.literal("isInBillingRetryPeriod", renewal.isInBillingRetryPeriod == true ? "true" : "false")
        if let grace = renewal.gracePeriodExpiresMs { json.number("gracePeriodExpiresDate", grace) }
        if renewal.autoRenewStatus, let expires = last.expiresMs {
            json.number("renewalDate", expires)
            json.number("renewalPrice", WorldUnit.priceMilliunits(renewal.autoRenewProductID))
            json.text("currency", "USD")
        }
        json.number("recentSubscriptionStartDate", last.originalPurchaseMs)
        json.text("environment", signedEnvironment)
        json.number("signedDate", asOf)
        json.text("appTransactionId", appTransactionID)
        return json.bytes
    }

    /// `environment` in signed payloads.
    var signedEnvironment: String { environment == .sandbox ? "Sandbox" : "Production" }
}

/// A flat JSON object written field by field (the world's values need no escaping: ids, product ids and
/// fixed words).
struct PayloadJSON {
    private var fields: [String] = []

    mutating func text(_ key: String, _ value: String) { fields.append("\"\(key)\":\"\(value)\"") }
    mutating func number(_ key: String, _ value: Int64) { fields.append("\"\(key)\":\(value)") }
    mutating func literal(_ key: String, _ json: String) { fields.append("\"\(key)\":\(json)") }

    var bytes: [UInt8] { Array(("{" + fields.joined(separator: ",") + "}").utf8) }
}
