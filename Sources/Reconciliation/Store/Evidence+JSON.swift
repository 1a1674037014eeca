import AppStoreReceipts
import CivilTime
import Foundation
import Postgres

// `recon_corrections.evidence` and `recon_flags.evidence` as stored: one JSON object, snake_case keys,
// instants as ISO 8601 UTC (`2026-11-03T10:00:00Z`, `.SSS` only when there are milliseconds: Apple's
// dates keep theirs), absent facts left out. Written by `JSONEncoder.sorted`, read back by
// `JSONDecoder.sorted` (`verify-user --explain`); `RunFinalizer` writes the end-of-run flags' in SQL
// with the same keys.
extension Evidence: Codable {
    enum CodingKeys: String, CodingKey {
        case rule, entitlement, purchases, receipts, entitlements
        case asOf = "as_of"
        case gracePeriodExpiresDate = "grace_period_expires_date"
        case previouslyRefunded = "previously_refunded"
        case productIDs = "product_ids"
        case originalTransactionID = "original_transaction_id"
        case otherUsers = "other_users"
        case revertsCorrectionID = "reverts_correction_id"
        case revertsRunID = "reverts_run_id"
        case revertsReason = "reverts_reason"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(rule: try c.decode(String.self, forKey: .rule))
        asOf = try c.instant(.asOf)
        entitlement = try c.decodeIfPresent(String.self, forKey: .entitlement)
        purchases = try c.decodeIfPresent([PurchaseFact].self, forKey: .purchases) ?? []
        receipts = try c.decodeIfPresent([ReceiptFact].self, forKey: .receipts) ?? []
        gracePeriodExpiresDate = try c.instant(.gracePeriodExpiresDate)
        previouslyRefunded = try c.decodeIfPresent(Bool.self, forKey: .previouslyRefunded)
        productIDs = try c.decodeIfPresent([String].self, forKey: .productIDs) ?? []
        originalTransactionID = try c.decodeIfPresent(String.self, forKey: .originalTransactionID)
        otherUsers = try c.decodeIfPresent([String].self, forKey: .otherUsers) ?? []
        entitlementRows = try c.decodeIfPresent([EntitlementFact].self, forKey: .entitlements) ?? []
        revertsCorrectionID = try c.decodeIfPresent(Int64.self, forKey: .revertsCorrectionID)
        revertsRunID = try c.decodeIfPresent(Int64.self, forKey: .revertsRunID)
        revertsReason = try c.decodeIfPresent(String.self, forKey: .revertsReason).flatMap(CorrectionReason.init)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rule, forKey: .rule)
        try c.encodeInstant(asOf, .asOf)
        try c.encodeIfPresent(entitlement, forKey: .entitlement)
        try c.encodeUnlessEmpty(purchases, .purchases)
        try c.encodeUnlessEmpty(receipts, .receipts)
        try c.encodeInstant(gracePeriodExpiresDate, .gracePeriodExpiresDate)
        try c.encodeIfPresent(previouslyRefunded, forKey: .previouslyRefunded)
        try c.encodeUnlessEmpty(productIDs, .productIDs)
        try c.encodeIfPresent(originalTransactionID, forKey: .originalTransactionID)
        try c.encodeUnlessEmpty(otherUsers, .otherUsers)
        try c.encodeUnlessEmpty(entitlementRows, .entitlements)
        try c.encodeIfPresent(revertsCorrectionID, forKey: .revertsCorrectionID)
        try c.encodeIfPresent(revertsRunID, forKey: .revertsRunID)
        try c.encodeIfPresent(revertsReason?.rawValue, forKey: .revertsReason)
    }

    /// The stored text, by `encoder` (`JSONEncoder.sorted`, one per batch); nil only if encoding failed,
    /// which plain values cannot.
    func storedJSON(_ encoder: JSONEncoder) -> PostgresJSON? {
        (try? encoder.encode(self)).map { PostgresJSON(String(decoding: $0, as: UTF8.self)) }
    }

    /// The evidence in a stored text; nil for NULL (a row written before evidence was kept) or text
    /// that is not evidence.
    public init?(storedJSON text: String?) {
        guard let text, let evidence = try? JSONDecoder.sorted.decode(Evidence.self, from: Data(text.utf8)) else {
            return nil
        }
        self = evidence
    }
}

extension Evidence.PurchaseFact: Codable {
    enum CodingKeys: String, CodingKey {
        case source, environment, ownership
        case receiptID = "receipt_id"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case revocationDate = "revocation_date"
        case revocationReason = "revocation_reason"
        case revocationType = "revocation_type"
        case revocationPercentage = "revocation_percentage"
        case isUpgraded = "is_upgraded"
        case reportedAt = "reported_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(source: try c.decode(TransactionSource.self, forKey: .source))
        receiptID = try c.decodeIfPresent(Int64.self, forKey: .receiptID)
        transactionID = try c.decodeIfPresent(String.self, forKey: .transactionID)
        originalTransactionID = try c.decodeIfPresent(String.self, forKey: .originalTransactionID)
        productID = try c.decodeIfPresent(String.self, forKey: .productID)
        environment = try c.decodeIfPresent(String.self, forKey: .environment).flatMap {
            AppStoreEnvironment(rawValue: $0)
        }
        purchaseDate = try c.instant(.purchaseDate)
        expiresDate = try c.instant(.expiresDate)
        revocationDate = try c.instant(.revocationDate)
        revocationReason = try c.decodeIfPresent(Int.self, forKey: .revocationReason)
        revocationType = try c.decodeIfPresent(String.self, forKey: .revocationType)
        revocationPercentage = try c.decodeIfPresent(Decimal.self, forKey: .revocationPercentage).flatMap {
            Percentage(decimal: "\($0)")
        }
        isUpgraded = try c.decodeIfPresent(Bool.self, forKey: .isUpgraded)
        ownership = try c.decodeIfPresent(String.self, forKey: .ownership)
        reportedAt = try c.instant(.reportedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(receiptID, forKey: .receiptID)
        try c.encodeIfPresent(transactionID, forKey: .transactionID)
        try c.encodeIfPresent(originalTransactionID, forKey: .originalTransactionID)
        try c.encodeIfPresent(productID, forKey: .productID)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(environment?.rawValue, forKey: .environment)
        try c.encodeInstant(purchaseDate, .purchaseDate)
        try c.encodeInstant(expiresDate, .expiresDate)
        try c.encodeInstant(revocationDate, .revocationDate)
        try c.encodeIfPresent(revocationReason, forKey: .revocationReason)
        try c.encodeIfPresent(revocationType, forKey: .revocationType)
        // The exact decimal (`25`, `33.333`), as `recon_transactions.revocation_percentage` holds it.
        try c.encodeIfPresent(
            revocationPercentage.flatMap { Decimal(string: $0.description) }, forKey: .revocationPercentage)
        try c.encodeIfPresent(isUpgraded, forKey: .isUpgraded)
        try c.encodeIfPresent(ownership, forKey: .ownership)
        try c.encodeInstant(reportedAt, .reportedAt)
    }
}

extension Evidence.ReceiptFact: Codable {
    enum CodingKeys: String, CodingKey {
        case outcome, source, environment, unverified, detail
        case receiptID = "receipt_id"
        case appleStatus = "apple_status"
        case errorCode = "error_code"
        case productIDs = "product_ids"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            receiptID: try c.decode(Int64.self, forKey: .receiptID),
            outcome: try c.decode(ReceiptOutcome.self, forKey: .outcome),
            source: try c.decode(TransactionSource.self, forKey: .source))
        environment = try c.decodeIfPresent(String.self, forKey: .environment).flatMap {
            AppStoreEnvironment(rawValue: $0)
        }
        appleStatus = try c.decodeIfPresent(Int.self, forKey: .appleStatus)
        errorCode = try c.decodeIfPresent(Int.self, forKey: .errorCode)
        unverified = try c.decodeIfPresent(String.self, forKey: .unverified).flatMap { UnverifiedKind(rawValue: $0) }
        detail = try c.decodeIfPresent(String.self, forKey: .detail)
        productIDs = try c.decodeIfPresent([String].self, forKey: .productIDs) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(receiptID, forKey: .receiptID)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(environment?.rawValue, forKey: .environment)
        try c.encodeIfPresent(appleStatus, forKey: .appleStatus)
        try c.encodeIfPresent(errorCode, forKey: .errorCode)
        try c.encodeIfPresent(unverified?.rawValue, forKey: .unverified)
        try c.encodeIfPresent(detail, forKey: .detail)
        try c.encodeUnlessEmpty(productIDs, .productIDs)
    }
}

extension Evidence.EntitlementFact: Codable {
    enum CodingKeys: String, CodingKey {
        case entitlement
        case expiresAt = "expires_at"
        case productID = "product_id"
        case originalTransactionID = "original_transaction_id"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(entitlement: try c.decode(String.self, forKey: .entitlement))
        expiresAt = try c.instant(.expiresAt)
        productID = try c.decodeIfPresent(String.self, forKey: .productID)
        originalTransactionID = try c.decodeIfPresent(String.self, forKey: .originalTransactionID)
        updatedAt = try c.instant(.updatedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entitlement, forKey: .entitlement)
        try c.encodeInstant(expiresAt, .expiresAt)
        try c.encodeIfPresent(productID, forKey: .productID)
        try c.encodeIfPresent(originalTransactionID, forKey: .originalTransactionID)
        try c.encodeInstant(updatedAt, .updatedAt)
    }
}

extension KeyedDecodingContainer {
    /// An instant written by `encodeInstant` (or by PostgreSQL, with an offset); nil when absent. Whole
    /// milliseconds, as written: the digits summed into a `Date` are rounded back to the one they spell.
    fileprivate func instant(_ key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = Instant.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an instant: \(text)")
        }
        return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1_000).rounded() / 1_000)
    }
}

extension KeyedEncodingContainer {
    /// `2026-11-03T10:00:00Z`, `.SSS` only when there are milliseconds; nothing when nil.
    fileprivate mutating func encodeInstant(_ date: Date?, _ key: Key) throws {
        try encodeIfPresent(date.map(Instant.format), forKey: key)
    }

    fileprivate mutating func encodeUnlessEmpty<T: Encodable>(_ values: [T], _ key: Key) throws {
        if !values.isEmpty { try encode(values, forKey: key) }
    }
}
