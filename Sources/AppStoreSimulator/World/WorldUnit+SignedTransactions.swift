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
        return owner.transactionPayload(
            transaction, seenAt: signedMs, signedMs: signedMs,
            appTransactionID: appTransactionID(account: account),
            expiryShift: forged ? 365 * SubscriptionClock.millisecondsPerDay : 0)
    }

    /// `appTransactionId` of `account`: one per Apple ID and app, like Apple's.
    func appTransactionID(account: Int) -> String {
        String(Self.appTransactionIDBase + UInt64(index) * 10 + UInt64(account))
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

    /// What the customer paid for `transaction`, in milliunits of USD (the signed `price`): its
    /// product's price, nothing for a free trial period.
    static func priceMilliunits(of transaction: WorldTransaction) -> Int64 {
        transaction.isTrialPeriod ? 0 : priceMilliunits(transaction.productID)
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
    static func base64URL(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }

    /// The bytes of base64url `text`, padded or not; nil when it is not base64.
    static func bytes(base64URL text: String) -> [UInt8]? { Base64URL.decodeLenient(text) }
}
