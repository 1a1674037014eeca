import AppStoreReceipts
import Foundation

/// The StoreKit 2 rows of a unit: `Transaction.jwsRepresentation` of one transaction, with the payload
/// fields Apple signs (`JWSTransactionDecodedPayload`, research/server-api.md §6) as they were at the
/// row's `signedMs`: a refund Apple made before then is in it (`revocationDate`), a renewal after is not.
///
/// The payload is a pure function of the unit; the JWS around it needs the seeding's signing chain.
extension WorldUnit {
    /// `appTransactionId` of an account: `7` + unit (15 digits) + account (1), like Apple's numeric ids.
    static let appTransactionIDBase: UInt64 = 7_000_000_000_000_000

    /// The JWS stored in StoreKit 2 slot `slot`, signed by `chain`. A tampered slot's payload is
    /// replaced after signing, as an edit on the device would: header and signature stay Apple's.
    package func signedTransactionJWS(_ slot: Int, signingChain chain: SigningChain) -> String {
        guard case .signedTransaction(_, _, _, let tampered) = receipts[slot] else {
            preconditionFailure("slot \(slot) holds no signed transaction")
        }
        let jws = chain.sign(payload: signedTransactionPayload(slot))
        guard tampered else { return jws }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        return parts[0] + "." + Self.base64URL(signedTransactionPayload(slot, forged: true)) + "." + parts[2]
    }

    /// The payload JSON of StoreKit 2 slot `slot`: what Apple signed, or with `forged` what a tampered
    /// row shows instead (`expiresDate` a year later).
    public func signedTransactionPayload(_ slot: Int, forged: Bool = false) -> [UInt8] {
        guard case .signedTransaction(let account, let id, let signedMs, _) = receipts[slot] else {
            preconditionFailure("slot \(slot) holds no signed transaction")
        }
        let owner = accounts[account]
        let transaction = owner.transaction(withID: id)!
        let view = transaction.view(at: signedMs)
        let kind = WorldCatalog.product(transaction.productID)?.kind ?? .nonConsumable

        var fields: [(key: String, json: String)] = []
        func text(_ key: String, _ value: String) { fields.append((key, "\"" + value + "\"")) }
        func number(_ key: String, _ value: Int64) { fields.append((key, String(value))) }
        text("transactionId", transaction.transactionID)
        text("originalTransactionId", transaction.originalTransactionID)
        if let webOrder = transaction.webOrderLineItemID { text("webOrderLineItemId", webOrder) }
        text("bundleId", owner.bundleID)
        text("productId", transaction.productID)
        if kind == .autoRenewable { text("subscriptionGroupIdentifier", WorldCatalog.premiumGroupID) }
        number("purchaseDate", transaction.purchaseMs)
        number("originalPurchaseDate", transaction.originalPurchaseMs)
        if let expires = transaction.expiresMs {
            number("expiresDate", expires + (forged ? 365 * SubscriptionClock.millisecondsPerDay : 0))
        }
        number("quantity", Int64(transaction.quantity))
        text("type", Self.signedType(kind))
        text("inAppOwnershipType", transaction.ownership.rawValue)
        number("signedDate", signedMs)
        if let revoked = view.cancellationMs {
            // An upgrade ends a period too (StoreKit 2 sets revocationDate beside isUpgraded), with no reason.
            number("revocationDate", revoked)
            if !view.isUpgraded {
                number("revocationReason", Int64(view.cancellationReason ?? 0))
                text("revocationType", transaction.ownership == .familyShared ? "FAMILY_REVOKE" : "REFUND_FULL")
            }
        }
        if view.isUpgraded { fields.append(("isUpgraded", "true")) }
        if transaction.isTrialPeriod {
            number("offerType", 1)
            text("offerDiscountType", "FREE_TRIAL")
        }
        text("environment", owner.environment == .sandbox ? "Sandbox" : "Production")
        let isFirst = transaction.transactionID == transaction.originalTransactionID
        text("transactionReason", isFirst ? "PURCHASE" : "RENEWAL")
        text("storefront", "USA")
        text("storefrontId", "143441")
        number("price", transaction.isTrialPeriod ? 0 : Self.priceMilliunits(transaction.productID))
        text("currency", "USD")
        text("appTransactionId", String(Self.appTransactionIDBase + UInt64(index) * 10 + UInt64(account)))
        return Array(("{" + fields.map { "\"\($0.key)\":\($0.json)" }.joined(separator: ",") + "}").utf8)
    }

    /// Apple's `type` of a product kind.
    static func signedType(_ kind: WorldProduct.Kind) -> String {
        switch kind {
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        }
    }

    /// US prices in milliunits of USD (4.99 is 4990), fixed per product like the catalog.
    static func priceMilliunits(_ productID: String) -> Int64 {
        switch productID {
        case WorldCatalog.premiumMonthly.id: 4_990
        case WorldCatalog.premiumYearly.id: 49_990
        case WorldCatalog.pro.id: 19_990
        case WorldCatalog.seasonPass.id: 9_990
        case WorldCatalog.coins.id: 990
        default: 2_990
        }
    }

    /// Base64url without padding (RFC 7515 §2), as JWS segments are written.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
