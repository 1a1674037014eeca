import Foundation

@testable import AppStoreReceipts

/// The decoder `VerifyReceiptResponse.decode` used before `VerifyReceiptAnswerReader`: the answer
/// parsed to an `AppleJSONDocument` and each model's fields looked up in its object's member table,
/// kept as it was (the models' `init(_ json:)`, `appleObject`, `appleList`) as the oracle of the
/// differential tests. Test-only: Sources decode verifyReceipt answers in one pass.
enum TapeVerifyReceiptDecoder {
    static func decode(_ data: Data, keepingLatestReceipt: Bool = true) throws(VerifyReceiptDecodingError)
        -> VerifyReceiptResponse
    {
        let body = VerifyReceiptDecodingError.stripByteOrderMark(data)
        if let problem = VerifyReceiptDecodingError.problemBeforeParsing(body) {
            throw problem
        }
        // The body starts with `{`, so a value that parses is an object.
        guard case .object(let json)? = try? AppleJSONParser.parse(body) else {
            // Cut off in transit, or corrupt.
            throw .malformedJSON(byteCount: body.count)
        }
        return try VerifyReceiptResponse(json, keepingLatestReceipt: keepingLatestReceipt)
    }
}

/// The outcome of decoding a body through the document, for comparing with `decodingResult`.
func tapeDecodingResult(_ body: Data) -> Result<VerifyReceiptResponse, VerifyReceiptDecodingError> {
    Result { () throws(VerifyReceiptDecodingError) in try TapeVerifyReceiptDecoder.decode(body) }
}

/// A model decoded from an object of an `AppleJSONDocument`.
protocol AppleJSONDecodable {
    init(_ json: AppleJSONObject)
}

extension AppleJSONObject {
    /// A nested object, or nil when it is absent, `null` or not an object.
    func appleObject<T: AppleJSONDecodable>(_ type: T.Type, _ key: StaticString) -> T? {
        guard let index = valueIndex(of: key), case .object(let object) = document.value(at: index) else { return nil }
        return T(object)
    }

    /// A list that Apple may send as an array or, in the iOS 6 era, as a single object.
    /// Elements that are not objects are skipped; the others are kept.
    func appleList<T: AppleJSONDecodable>(_ type: T.Type, _ key: StaticString) -> [T] {
        switch valueIndex(of: key).map(document.value(at:)) {
        case .array(let elements):
            return elements.compactMap { element in
                guard case .object(let object) = element else { return nil }
                return T(object)
            }
        case .object(let object):
            return [T(object)]
        default:
            return []
        }
    }
}

extension VerifyReceiptResponse {
    init(_ json: AppleJSONObject, keepingLatestReceipt: Bool = true) throws(VerifyReceiptDecodingError) {
        guard let status = json["status"], status != .null else {
            throw .missingStatus
        }
        guard let code = AppleJSONScalar(status)?.int64Value.flatMap({ Int(exactly: $0) }) else {
            throw .statusNotANumber
        }
        let receipt = json.appleObject(VerifyReceiptDecodedReceipt.self, "receipt")
        let latestExpiredReceiptInfo = json.appleList(VerifyReceiptTransaction.self, "latest_expired_receipt_info")
        var pendingRenewalInfo = json.appleList(VerifyReceiptPendingRenewalInfo.self, "pending_renewal_info")
        if pendingRenewalInfo.isEmpty {
            var topLevel = VerifyReceiptPendingRenewalInfo(json)
            if !topLevel.isEmpty {
                // iOS 6: the renewal fields describe the receipt's own subscription.
                let purchase = receipt?.transaction ?? latestExpiredReceiptInfo.first
                topLevel.originalTransactionID = topLevel.originalTransactionID ?? purchase?.originalTransactionID
                topLevel.productID = topLevel.productID ?? purchase?.productID
                pendingRenewalInfo = [topLevel]
            }
        }
        self.init(
            rawStatus: code,
            rawEnvironment: json.appleString("environment"),
            receipt: receipt,
            latestReceipt: keepingLatestReceipt ? json.appleString("latest_receipt") : nil,
            latestReceiptInfo: json.appleList(VerifyReceiptTransaction.self, "latest_receipt_info"),
            latestExpiredReceiptInfo: latestExpiredReceiptInfo,
            pendingRenewalInfo: pendingRenewalInfo,
            isRetryable: json.appleBool("is_retryable") ?? json.appleBool("is-retryable")
        )
    }
}

extension VerifyReceiptTransaction: AppleJSONDecodable {
    init(_ json: AppleJSONObject) {
        self.init(
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

extension VerifyReceiptDecodedReceipt: AppleJSONDecodable {
    init(_ json: AppleJSONObject) {
        // `bid` only exists in transaction receipts; a flat `transaction_id` without `in_app`
        // is the same shape with `bid` missing.
        let isTransactionReceipt =
            json.contains("bid")
            || (!json.contains("in_app") && json.contains("transaction_id"))
        self.init(
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
            inApp: json.appleList(VerifyReceiptTransaction.self, "in_app"),
            // The same object read a second time, as a purchase.
            transaction: isTransactionReceipt ? VerifyReceiptTransaction(json) : nil
        )
    }
}

extension VerifyReceiptPendingRenewalInfo: AppleJSONDecodable {
    /// Also used on the top level of an iOS 6 response, which carries the same keys unnested.
    init(_ json: AppleJSONObject) {
        self.init(
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
