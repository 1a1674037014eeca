import AppStoreReceipts
import Foundation
import Testing

/// Helpers shared by the signed payload tests: JWS segments and a value-per-field view of each
/// payload kind under Apple's field names, to compare with EXPECTED.json.
enum SignedPayloadSamples {
    /// The bytes of a compact JWS's payload segment (base64url, no padding); nil when `jws` is
    /// not three segments or the middle one is not base64url.
    static func payloadSegment(_ jws: String) -> [UInt8]? {
        let segments = jws.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return nil }
        var base64 = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    static func decode(_ json: String) throws -> SignedPayload {
        try SignedPayload.decode(Array(json.utf8))
    }

    /// Milliseconds since 1970, rounded, as EXPECTED.json and Apple write dates.
    static func milliseconds(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1_000).rounded()) }
    }

    /// One field's value in the shape JSONSerialization gives the expected one.
    enum Field {
        case string(String?)
        case integer(Int64?)
        case boolean(Bool?)
        case strings([String]?)

        static func date(_ date: Date?) -> Field { .integer(milliseconds(date)) }
        static func integer(_ value: Int?) -> Field { .integer(value.map(Int64.init)) }

        /// Whether `expected` (from JSONSerialization) is this value.
        func matches(_ expected: Any) -> Bool {
            switch self {
            case .string(let value): (expected as? String) == value
            case .integer(let value): (expected as? NSNumber)?.int64Value == value && value != nil
            case .boolean(let value): (expected as? Bool) == value
            case .strings(let value): (expected as? [String]) == value
            }
        }
    }

    /// Every field of a payload under Apple's name; nil for a name the kind does not have.
    static func field(_ name: String, of payload: SignedPayload) -> Field? {
        switch payload {
        case .transaction(let transaction): transactionFields(transaction)[name]
        case .renewalInfo(let renewalInfo): renewalInfoFields(renewalInfo)[name]
        case .notification(let notification):
            name == "notificationType" ? .string(notification.notificationType?.rawValue) : nil
        case .appTransaction: nil
        }
    }

    static func transactionFields(_ transaction: SignedTransaction) -> [String: Field] {
        [
            "transactionId": .string(transaction.transactionID),
            "originalTransactionId": .string(transaction.originalTransactionID),
            "webOrderLineItemId": .string(transaction.webOrderLineItemID),
            "bundleId": .string(transaction.bundleID),
            "productId": .string(transaction.productID),
            "subscriptionGroupIdentifier": .string(transaction.subscriptionGroupIdentifier),
            "purchaseDate": .date(transaction.purchaseDate),
            "originalPurchaseDate": .date(transaction.originalPurchaseDate),
            "expiresDate": .date(transaction.expiresDate),
            "quantity": .integer(transaction.quantity),
            "type": .string(transaction.type?.rawValue),
            "appAccountToken": .string(transaction.appAccountToken),
            "inAppOwnershipType": .string(transaction.inAppOwnershipType?.rawValue),
            "signedDate": .date(transaction.signedDate),
            "revocationReason": .integer(transaction.revocationReason?.rawValue),
            "revocationDate": .date(transaction.revocationDate),
            "revocationType": .string(transaction.revocationType?.rawValue),
            "revocationPercentage": .integer(transaction.revocationPercentage),
            "isUpgraded": .boolean(transaction.isUpgraded),
            "offerType": .integer(transaction.offerType?.rawValue),
            "offerIdentifier": .string(transaction.offerIdentifier),
            "environment": .string(transaction.environment?.rawValue),
            "transactionReason": .string(transaction.transactionReason?.rawValue),
            "storefront": .string(transaction.storefront),
            "storefrontId": .string(transaction.storefrontID),
            "price": .integer(transaction.price),
            "currency": .string(transaction.currency),
            "offerDiscountType": .string(transaction.offerDiscountType?.rawValue),
            "appTransactionId": .string(transaction.appTransactionID),
            "offerPeriod": .string(transaction.offerPeriod),
        ]
    }

    static func renewalInfoFields(_ renewalInfo: SignedRenewalInfo) -> [String: Field] {
        [
            "expirationIntent": .integer(renewalInfo.expirationIntent?.rawValue),
            "originalTransactionId": .string(renewalInfo.originalTransactionID),
            "autoRenewProductId": .string(renewalInfo.autoRenewProductID),
            "productId": .string(renewalInfo.productID),
            "autoRenewStatus": .integer(renewalInfo.autoRenewStatus?.rawValue),
            "isInBillingRetryPeriod": .boolean(renewalInfo.isInBillingRetryPeriod),
            "priceIncreaseStatus": .integer(renewalInfo.priceIncreaseStatus?.rawValue),
            "gracePeriodExpiresDate": .date(renewalInfo.gracePeriodExpiresDate),
            "offerType": .integer(renewalInfo.offerType?.rawValue),
            "offerIdentifier": .string(renewalInfo.offerIdentifier),
            "signedDate": .date(renewalInfo.signedDate),
            "environment": .string(renewalInfo.environment?.rawValue),
            "recentSubscriptionStartDate": .date(renewalInfo.recentSubscriptionStartDate),
            "renewalDate": .date(renewalInfo.renewalDate),
            "renewalPrice": .integer(renewalInfo.renewalPrice),
            "currency": .string(renewalInfo.currency),
            "offerDiscountType": .string(renewalInfo.offerDiscountType?.rawValue),
            "eligibleWinBackOfferIds": .strings(renewalInfo.eligibleWinBackOfferIDs),
            "appTransactionId": .string(renewalInfo.appTransactionID),
            "offerPeriod": .string(renewalInfo.offerPeriod),
            "appAccountToken": .string(renewalInfo.appAccountToken),
        ]
    }
}
