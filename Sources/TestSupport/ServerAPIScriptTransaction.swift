import AppStoreReceipts
import Foundation

/// A transaction the scripted App Store Server API signs into its answers, built from simple values.
public struct ServerAPIScriptTransaction: Sendable {
    public var id: String
    public var originalID: String
    public var product: String
    public var type: String
    public var bundleID: String
    public var purchased: Date
    public var expires: Date?
    public var revoked: Date?
    public var upgraded: Bool
    /// `Production` / `Sandbox`; nil: the environment of the host that answers, as Apple signs.
    public var environment: String?
    /// Changes the payload after signing, so the signature no longer covers it (a forgery).
    public var forged: Bool
    /// `signedDate`; nil: the moment it is signed.
    public var signed: Date?
    /// Signs no `environment` at all (Apple always does: such data is not believed).
    public var omitsEnvironment: Bool
    /// `revocationType` of a revoked transaction (`REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`); nil:
    /// none sent.
    public var revocationType: String?
    /// `revocationPercentage` of a revoked transaction, in Apple's milliunits (25000 is 25 %); nil: none sent.
    public var revocationPercentage: Int?
    /// `inAppOwnershipType`: `PURCHASED`, or `FAMILY_SHARED` for a family member's copy.
    public var ownership: String
    /// `price` in Apple's milliunits of `currency` (9990 is 9.99).
    public var price: Int64
    public var currency: String

    public init(
        id: String, originalID: String? = nil, product: String = "monthly",
        type: String = "Auto-Renewable Subscription", bundleID: String = "com.example", purchased: Date,
        expires: Date? = nil, revoked: Date? = nil, upgraded: Bool = false, environment: String? = nil,
        forged: Bool = false, signed: Date? = nil, omitsEnvironment: Bool = false,
        revocationType: String? = "REFUND_FULL", revocationPercentage: Int? = nil, ownership: String = "PURCHASED",
        price: Int64 = 9990, currency: String = "USD"
    ) {
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.ownership = ownership
        self.price = price
        self.currency = currency
        self.signed = signed
        self.omitsEnvironment = omitsEnvironment
        self.id = id
        self.originalID = originalID ?? id
        self.product = product
        self.type = type
        self.bundleID = bundleID
        self.purchased = purchased
        self.expires = expires
        self.revoked = revoked
        self.upgraded = upgraded
        self.environment = environment
        self.forged = forged
    }

    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The payload's JSON members: `transactionId` first, the rest as Apple names them.
    func payload(host: String) -> String {
        var fields = [
            "\"transactionId\":\"\(id)\"", "\"originalTransactionId\":\"\(originalID)\"",
            "\"bundleId\":\"\(bundleID)\"", "\"productId\":\"\(product)\"", "\"type\":\"\(type)\"",
            "\"purchaseDate\":\(Self.ms(purchased))", "\"originalPurchaseDate\":\(Self.ms(purchased))",
            "\"signedDate\":\(Self.ms(signed ?? Date()))", "\"inAppOwnershipType\":\"\(ownership)\"", "\"quantity\":1",
            "\"price\":\(price)", "\"currency\":\"\(currency)\"", "\"storefront\":\"USA\"",
        ]
        if !omitsEnvironment { fields.insert("\"environment\":\"\(environment ?? host)\"", at: 8) }
        if let expires { fields.append("\"expiresDate\":\(Self.ms(expires))") }
        if let revoked {
            fields += ["\"revocationDate\":\(Self.ms(revoked))", "\"revocationReason\":0"]
            if let revocationType { fields.append("\"revocationType\":\"\(revocationType)\"") }
            if let revocationPercentage { fields.append("\"revocationPercentage\":\(revocationPercentage)") }
        }
        if upgraded { fields.append("\"isUpgraded\":true") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The signed transaction; a forged one carries a payload the signature was not made over.
    func jws(_ chain: SigningChain, host: String) -> String {
        let signed = chain.sign(payload: Array(payload(host: host).utf8))
        return forged ? Self.forge(signed) : signed
    }

    /// `jws` with its payload's `price` changed and the signature left as it was.
    static func forge(_ jws: String) -> String {
        tampered(jws) { payload in
            let changed = payload.replacingOccurrences(of: "\"price\":9990", with: "\"price\":10")
            // Another price: a 1 put before it, so the payload still differs from what was signed.
            return changed != payload ? changed : payload.replacingOccurrences(of: "\"price\":", with: "\"price\":1")
        }
    }

    /// `jws` with its payload text passed through `change` and the signature left as it was.
    static func tampered(_ jws: String, _ change: (String) -> String) -> String {
        var parts = jws.split(separator: ".").map(String.init)
        let payload = String(decoding: ReceivedToken.base64URL(parts[1]) ?? Data(), as: UTF8.self)
        parts[1] = Data(change(payload).utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return parts.joined(separator: ".")
    }
}

/// One subscription in a scripted Get All Subscription Statuses answer.
public struct ServerAPIScriptStatus: Sendable {
    /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int
    public var transaction: ServerAPIScriptTransaction
    public var gracePeriodExpires: Date?
    public var autoRenew: Bool
    /// The renewal info's `signedDate` (Apple's state as of that instant); nil: the moment it is signed.
    public var renewalSigned: Date?
    /// The renewal info signs no `environment` (not believed).
    public var renewalOmitsEnvironment: Bool

    public init(
        status: Int, transaction: ServerAPIScriptTransaction, gracePeriodExpires: Date? = nil, autoRenew: Bool = true,
        renewalSigned: Date? = nil, renewalOmitsEnvironment: Bool = false
    ) {
        self.status = status
        self.transaction = transaction
        self.gracePeriodExpires = gracePeriodExpires
        self.autoRenew = autoRenew
        self.renewalSigned = renewalSigned
        self.renewalOmitsEnvironment = renewalOmitsEnvironment
    }

    func json(_ chain: SigningChain, host: String) -> String {
        let ms = ServerAPIScriptTransaction.ms
        var renewal = [
            "\"originalTransactionId\":\"\(transaction.originalID)\"", "\"productId\":\"\(transaction.product)\"",
            "\"autoRenewProductId\":\"\(transaction.product)\"", "\"autoRenewStatus\":\(autoRenew ? 1 : 0)",
            "\"signedDate\":\(ms(renewalSigned ?? Date()))", "\"isInBillingRetryPeriod\":\(status == 3 || status == 4)",
        ]
        if !renewalOmitsEnvironment { renewal.append("\"environment\":\"\(transaction.environment ?? host)\"") }
        if status == 3 || status == 4 { renewal.append("\"expirationIntent\":2") }
        if let gracePeriodExpires { renewal.append("\"gracePeriodExpiresDate\":\(ms(gracePeriodExpires))") }
        let renewalJWS = chain.sign(payload: Array(("{" + renewal.joined(separator: ",") + "}").utf8))
        return "{\"status\":\(status),\"originalTransactionId\":\"\(transaction.originalID)\","
            + "\"signedTransactionInfo\":\"\(transaction.jws(chain, host: host))\","
            + "\"signedRenewalInfo\":\"\(renewalJWS)\"}"
    }
}
