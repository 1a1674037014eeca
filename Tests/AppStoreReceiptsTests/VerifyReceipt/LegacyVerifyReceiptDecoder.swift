import Foundation

@testable import AppStoreReceipts

/// The decoder `VerifyReceiptResponse.decode` used before `AppleJSONParser`: Foundation's
/// `JSONDecoder` through hand-written `init(from:)`s, kept verbatim (types renamed) as the oracle
/// of the differential tests. Test-only: nothing in Sources uses `Decodable` for these models.
enum LegacyVerifyReceiptDecoder {
    static func decode(_ data: Data) throws(VerifyReceiptDecodingError) -> VerifyReceiptResponse {
        let body = VerifyReceiptDecodingError.stripByteOrderMark(data)
        if let problem = VerifyReceiptDecodingError.problemBeforeParsing(body) {
            throw problem
        }
        do {
            return try JSONDecoder().decode(LegacyResponse.self, from: body).value
        } catch let error as VerifyReceiptDecodingError {
            throw error
        } catch {
            throw .malformedJSON(byteCount: body.count)
        }
    }
}

/// The outcome of decoding a body the old way, for comparing with `decodingResult`.
func legacyDecodingResult(_ body: Data) -> Result<VerifyReceiptResponse, VerifyReceiptDecodingError> {
    Result { () throws(VerifyReceiptDecodingError) in try LegacyVerifyReceiptDecoder.decode(body) }
}

private struct LegacyKey: CodingKey, Hashable, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { self.stringValue = value }
}

enum LegacyScalar: Decodable, Sendable {
    case string(String)
    case integer(Int64)
    case number(Decimal)
    case bool(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Decimal.self) {
            self = .number(value)
        } else {
            throw DecodingError.typeMismatch(
                LegacyScalar.self,
                .init(codingPath: decoder.codingPath, debugDescription: "expected a string, number or boolean")
            )
        }
    }

    var stringValue: String {
        switch self {
        case .string(let value): return value
        case .integer(let value): return String(value)
        case .number(let value): return value.description
        case .bool(let value): return value ? "true" : "false"
        }
    }

    var int64Value: Int64? {
        switch self {
        case .integer(let value):
            return value
        case .number(let value):
            return Self.integral(value)
        case .string(let text):
            if let value = Int64(text) { return value }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let value = Int64(trimmed) { return value }
            guard trimmed.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }),
                let decimal = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            return Self.integral(decimal)
        case .bool(let value):
            return value ? 1 : 0
        }
    }

    var boolValue: Bool? {
        switch self {
        case .bool(let value):
            return value
        case .integer(let value):
            return value == 1 ? true : value == 0 ? false : nil
        case .number(let value):
            return value == 1 ? true : value == 0 ? false : nil
        case .string(let text):
            switch text {
            case "true", "1": return true
            case "false", "0": return false
            default: break
            }
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: return nil
            }
        }
    }

    private static func integral(_ value: Decimal) -> Int64? {
        guard !value.isNaN else { return nil }
        var source = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &source, 0, .plain)
        guard value == rounded else { return nil }
        return Int64(value.description)
    }

    static func fromMilliseconds(_ scalar: LegacyScalar) -> Date? {
        guard let milliseconds = scalar.int64Value else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
    }

    static func fromAnySpelling(_ scalar: LegacyScalar) -> Date? {
        switch scalar {
        case .integer, .number:
            return fromMilliseconds(scalar)
        case .string(let text):
            if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                return fromMilliseconds(scalar)
            }
            return AppleJSONDate.parse(text)
        case .bool:
            return nil
        }
    }
}

extension KeyedDecodingContainer where Key == LegacyKey {
    fileprivate func appleScalar(_ key: LegacyKey) -> LegacyScalar? {
        (try? decodeIfPresent(LegacyScalar.self, forKey: key)) ?? nil
    }

    fileprivate func appleString(_ key: LegacyKey) -> String? {
        appleScalar(key)?.stringValue
    }

    fileprivate func appleInt(_ key: LegacyKey) -> Int? {
        appleScalar(key)?.int64Value.flatMap { Int(exactly: $0) }
    }

    fileprivate func appleBool(_ key: LegacyKey) -> Bool? {
        appleScalar(key)?.boolValue
    }

    fileprivate func appleDate(milliseconds millisecondsKey: LegacyKey, text textKeys: LegacyKey...) -> Date? {
        if let scalar = appleScalar(millisecondsKey), let date = LegacyScalar.fromMilliseconds(scalar) {
            return date
        }
        for key in textKeys {
            if let scalar = appleScalar(key), let date = LegacyScalar.fromAnySpelling(scalar) {
                return date
            }
        }
        return nil
    }

    fileprivate func appleObject<T: Decodable>(_ type: T.Type, _ key: LegacyKey) -> T? {
        (try? decodeIfPresent(T.self, forKey: key)) ?? nil
    }

    fileprivate func appleList<T: Decodable>(_ type: T.Type, _ key: LegacyKey) -> [T] {
        guard contains(key) else { return [] }
        if let elements = try? decode([LegacyLossy<T>].self, forKey: key) {
            return elements.compactMap(\.value)
        }
        if let single = try? decode(T.self, forKey: key) {
            return [single]
        }
        return []
    }
}

private struct LegacyLossy<Wrapped: Decodable>: Decodable {
    let value: Wrapped?

    init(from decoder: any Decoder) throws {
        value = try? Wrapped(from: decoder)
    }
}

private struct LegacyResponse: Decodable {
    var value: VerifyReceiptResponse

    init(from decoder: any Decoder) throws {
        let json = try decoder.container(keyedBy: LegacyKey.self)
        guard json.contains("status"), (try? json.decodeNil(forKey: "status")) == false else {
            throw VerifyReceiptDecodingError.missingStatus
        }
        guard let code = json.appleScalar("status")?.int64Value.flatMap({ Int(exactly: $0) }) else {
            throw VerifyReceiptDecodingError.statusNotANumber
        }
        let receipt = json.appleObject(LegacyReceipt.self, "receipt")?.value
        let latestExpiredReceiptInfo = json.appleList(LegacyTransaction.self, "latest_expired_receipt_info").map(
            \.value)
        var pendingRenewalInfo = json.appleList(LegacyRenewal.self, "pending_renewal_info").map(\.value)
        if pendingRenewalInfo.isEmpty {
            var topLevel = LegacyRenewal.renewal(json)
            if topLevel != VerifyReceiptPendingRenewalInfo() {
                let purchase = receipt?.transaction ?? latestExpiredReceiptInfo.first
                topLevel.originalTransactionID = topLevel.originalTransactionID ?? purchase?.originalTransactionID
                topLevel.productID = topLevel.productID ?? purchase?.productID
                pendingRenewalInfo = [topLevel]
            }
        }
        value = VerifyReceiptResponse(
            rawStatus: code,
            rawEnvironment: json.appleString("environment"),
            receipt: receipt,
            latestReceipt: json.appleString("latest_receipt"),
            latestReceiptInfo: json.appleList(LegacyTransaction.self, "latest_receipt_info").map(\.value),
            latestExpiredReceiptInfo: latestExpiredReceiptInfo,
            pendingRenewalInfo: pendingRenewalInfo,
            isRetryable: json.appleBool("is_retryable") ?? json.appleBool("is-retryable")
        )
    }
}

private struct LegacyReceipt: Decodable {
    var value: VerifyReceiptDecodedReceipt

    init(from decoder: any Decoder) throws {
        let json = try decoder.container(keyedBy: LegacyKey.self)
        let isTransactionReceipt =
            json.contains("bid")
            || (!json.contains("in_app") && json.contains("transaction_id"))
        value = VerifyReceiptDecodedReceipt(
            format: isTransactionReceipt ? .transactionReceipt : .appReceipt,
            receiptType: json.appleString("receipt_type"),
            bundleID: json.appleString("bundle_id") ?? json.appleString("bid"),
            applicationVersion: json.appleString("application_version") ?? json.appleString("bvrs"),
            originalApplicationVersion: json.appleString("original_application_version"),
            receiptCreationDate: json.appleDate(
                milliseconds: "receipt_creation_date_ms", text: "receipt_creation_date"),
            requestDate: json.appleDate(milliseconds: "request_date_ms", text: "request_date"),
            originalPurchaseDate: json.appleDate(
                milliseconds: "original_purchase_date_ms", text: "original_purchase_date"),
            expirationDate: json.appleDate(milliseconds: "expiration_date_ms", text: "expiration_date"),
            appItemID: json.appleString("app_item_id") ?? json.appleString("adam_id"),
            downloadID: json.appleString("download_id"),
            versionExternalIdentifier: json.appleString("version_external_identifier"),
            inApp: json.appleList(LegacyTransaction.self, "in_app").map(\.value),
            transaction: isTransactionReceipt ? (try? LegacyTransaction(from: decoder))?.value : nil
        )
    }
}

private struct LegacyTransaction: Decodable {
    var value: VerifyReceiptTransaction

    init(from decoder: any Decoder) throws {
        let json = try decoder.container(keyedBy: LegacyKey.self)
        value = VerifyReceiptTransaction(
            productID: json.appleString("product_id"),
            transactionID: json.appleString("transaction_id"),
            originalTransactionID: json.appleString("original_transaction_id"),
            quantity: json.appleInt("quantity"),
            purchaseDate: json.appleDate(milliseconds: "purchase_date_ms", text: "purchase_date"),
            originalPurchaseDate: json.appleDate(
                milliseconds: "original_purchase_date_ms", text: "original_purchase_date"),
            expiresDate: json.appleDate(
                milliseconds: "expires_date_ms", text: "expires_date", "expires_date_formatted"),
            cancellationDate: json.appleDate(milliseconds: "cancellation_date_ms", text: "cancellation_date"),
            cancellationReason: json.appleInt("cancellation_reason"),
            isTrialPeriod: json.appleBool("is_trial_period"),
            isInIntroOfferPeriod: json.appleBool("is_in_intro_offer_period"),
            isUpgraded: json.appleBool("is_upgraded"),
            webOrderLineItemID: json.appleString("web_order_line_item_id"),
            inAppOwnershipType: json.appleString("in_app_ownership_type"),
            subscriptionGroupIdentifier: json.appleString("subscription_group_identifier"),
            promotionalOfferID: json.appleString("promotional_offer_id"),
            offerCodeRefName: json.appleString("offer_code_ref_name"),
            appAccountToken: json.appleString("app_account_token"),
            itemID: json.appleString("item_id")
        )
    }
}

private struct LegacyRenewal: Decodable {
    var value: VerifyReceiptPendingRenewalInfo

    init(from decoder: any Decoder) throws {
        value = Self.renewal(try decoder.container(keyedBy: LegacyKey.self))
    }

    static func renewal(_ json: KeyedDecodingContainer<LegacyKey>) -> VerifyReceiptPendingRenewalInfo {
        VerifyReceiptPendingRenewalInfo(
            autoRenewProductID: json.appleString("auto_renew_product_id"),
            autoRenewStatus: json.appleInt("auto_renew_status"),
            expirationIntent: json.appleInt("expiration_intent"),
            isInBillingRetryPeriod: json.appleBool("is_in_billing_retry_period"),
            gracePeriodExpiresDate: json.appleDate(
                milliseconds: "grace_period_expires_date_ms", text: "grace_period_expires_date"),
            originalTransactionID: json.appleString("original_transaction_id"),
            productID: json.appleString("product_id"),
            priceConsentStatus: json.appleInt("price_consent_status")
        )
    }
}
