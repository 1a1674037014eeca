import AppStoreReceipts
import CivilTime
import Foundation
import Postgres

// `recon_corrections.evidence` and `recon_flags.evidence` as stored: one JSON object, snake_case keys,
// instants as ISO 8601 UTC (`2026-11-03T10:00:00Z`, `.SSS` only when there are milliseconds: Apple's
// dates keep theirs), absent facts left out. Written as `JSONEncoder.sorted` would (`SortedJSONObject`),
// read back by `JSONDecoder.sorted` (`verify-user --explain`); `RunFinalizer` writes the end-of-run flags' in SQL
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

    public func encode(to encoder: any Encoder) throws { try jsonObject.encode(to: encoder) }

    /// What is written, stored or inside a larger document: absent facts and empty lists left out.
    var jsonObject: SortedJSONObject {
        var object = SortedJSONObject()
        object.add(CodingKeys.rule, rule)
        object.add(CodingKeys.asOf, instant: asOf)
        object.add(CodingKeys.entitlement, entitlement)
        object.add(CodingKeys.purchases, purchases.map(\.jsonObject))
        object.add(CodingKeys.receipts, receipts.map(\.jsonObject))
        object.add(CodingKeys.gracePeriodExpiresDate, instant: gracePeriodExpiresDate)
        object.add(CodingKeys.previouslyRefunded, previouslyRefunded)
        object.add(CodingKeys.productIDs, productIDs)
        object.add(CodingKeys.originalTransactionID, originalTransactionID)
        object.add(CodingKeys.otherUsers, otherUsers)
        object.add(CodingKeys.entitlements, entitlementRows.map(\.jsonObject))
        object.add(CodingKeys.revertsCorrectionID, revertsCorrectionID)
        object.add(CodingKeys.revertsRunID, revertsRunID)
        object.add(CodingKeys.revertsReason, revertsReason?.rawValue)
        return object
    }

    /// The stored text, as `JSONEncoder.sorted` would write it.
    var storedJSON: PostgresJSON { PostgresJSON(jsonObject.text) }

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

    public func encode(to encoder: any Encoder) throws { try jsonObject.encode(to: encoder) }

    var jsonObject: SortedJSONObject {
        var object = SortedJSONObject()
        object.add(CodingKeys.receiptID, receiptID)
        object.add(CodingKeys.transactionID, transactionID)
        object.add(CodingKeys.originalTransactionID, originalTransactionID)
        object.add(CodingKeys.productID, productID)
        object.add(CodingKeys.source, source.rawValue)
        object.add(CodingKeys.environment, environment?.rawValue)
        object.add(CodingKeys.purchaseDate, instant: purchaseDate)
        object.add(CodingKeys.expiresDate, instant: expiresDate)
        object.add(CodingKeys.revocationDate, instant: revocationDate)
        object.add(CodingKeys.revocationReason, revocationReason)
        object.add(CodingKeys.revocationType, revocationType)
        // The exact decimal (`25`, `33.333`), as `recon_transactions.revocation_percentage` holds it.
        object.add(CodingKeys.revocationPercentage, revocationPercentage.flatMap { Decimal(string: $0.description) })
        object.add(CodingKeys.isUpgraded, isUpgraded)
        object.add(CodingKeys.ownership, ownership)
        object.add(CodingKeys.reportedAt, instant: reportedAt)
        return object
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

    public func encode(to encoder: any Encoder) throws { try jsonObject.encode(to: encoder) }

    var jsonObject: SortedJSONObject {
        var object = SortedJSONObject()
        object.add(CodingKeys.receiptID, receiptID)
        object.add(CodingKeys.outcome, outcome.rawValue)
        object.add(CodingKeys.source, source.rawValue)
        object.add(CodingKeys.environment, environment?.rawValue)
        object.add(CodingKeys.appleStatus, appleStatus)
        object.add(CodingKeys.errorCode, errorCode)
        object.add(CodingKeys.unverified, unverified?.rawValue)
        object.add(CodingKeys.detail, detail)
        object.add(CodingKeys.productIDs, productIDs)
        return object
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

    public func encode(to encoder: any Encoder) throws { try jsonObject.encode(to: encoder) }

    var jsonObject: SortedJSONObject {
        var object = SortedJSONObject()
        object.add(CodingKeys.entitlement, entitlement)
        object.add(CodingKeys.expiresAt, instant: expiresAt)
        object.add(CodingKeys.productID, productID)
        object.add(CodingKeys.originalTransactionID, originalTransactionID)
        object.add(CodingKeys.updatedAt, instant: updatedAt)
        return object
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
