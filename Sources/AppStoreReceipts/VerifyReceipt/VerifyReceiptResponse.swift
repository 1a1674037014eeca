import Foundation

/// A verifyReceipt response body, decoded leniently.
///
/// Apple's JSON varies by era and environment: numbers and booleans as strings or not, dates
/// with or without `_ms`, `latest_receipt_info` as an array or (iOS 6) an object, keys that
/// come and go. Every variant seen in the conformance corpus decodes; a field in an unexpected
/// shape reads as nil instead of failing the response. Only a body with no usable `status`
/// fails, with a `VerifyReceiptDecodingError`.
///
/// The raw `status` and `environment` are kept beside their typed forms so that values Apple
/// adds later are not lost.
///
/// See Apple's [responseBody](https://developer.apple.com/documentation/appstorereceipts/responsebody).
public struct VerifyReceiptResponse: Hashable, Sendable {
    // Why a box: the answer travels from the worker that decoded it through the check cache, the
    // run's classification and the user's receipts, and each copy of the plain struct retained
    // every string and list in it; a copy of the box is one retain. Writes copy the box first
    // unless this value is its only owner (`CopyOnWrite`).
    private var storage: CopyOnWrite<Fields>

    /// `status` exactly as sent.
    public var rawStatus: Int {
        get { storage.value.rawStatus }
        set { storage.value.rawStatus = newValue }
    }
    /// `environment` exactly as sent (`Production`, `Sandbox`); nil when absent, as on bare
    /// 21002 / 21007 / 21008 answers and iOS 6 responses.
    public var rawEnvironment: String? {
        get { storage.value.rawEnvironment }
        set { storage.value.rawEnvironment = newValue }
    }
    /// `receipt`: Apple's decoded copy of the receipt sent; nil on most error statuses.
    public var receipt: VerifyReceiptDecodedReceipt? {
        get { storage.value.receipt }
        set { storage.value.receipt = newValue }
    }
    /// `latest_receipt`: base64 of the latest receipt (auto-renewables only). It is receipt
    /// data: never log it.
    public var latestReceipt: String? {
        get { storage.value.latestReceipt }
        set { storage.value.latestReceipt = newValue }
    }
    /// `latest_receipt_info`; empty when absent. An iOS 6 single object becomes one element.
    public var latestReceiptInfo: [VerifyReceiptTransaction] {
        get { storage.value.latestReceiptInfo }
        set { storage.value.latestReceiptInfo = newValue }
    }
    /// `latest_expired_receipt_info` (iOS 6, with status 21006); empty when absent.
    public var latestExpiredReceiptInfo: [VerifyReceiptTransaction] {
        get { storage.value.latestExpiredReceiptInfo }
        set { storage.value.latestExpiredReceiptInfo = newValue }
    }
    /// `pending_renewal_info`; empty when absent. iOS 6 responses carry the same fields
    /// (`auto_renew_status`, `expiration_intent`, ...) at the top level instead: they are
    /// gathered here as one element, linked to the receipt's transaction.
    public var pendingRenewalInfo: [VerifyReceiptPendingRenewalInfo] {
        get { storage.value.pendingRenewalInfo }
        set { storage.value.pendingRenewalInfo = newValue }
    }
    /// `is_retryable` or, in Apple's older spelling, `is-retryable`; nil when absent.
    /// Meaningful for statuses 21100-21199.
    public var isRetryable: Bool? {
        get { storage.value.isRetryable }
        set { storage.value.isRetryable = newValue }
    }

    public init(
        rawStatus: Int,
        rawEnvironment: String? = nil,
        receipt: VerifyReceiptDecodedReceipt? = nil,
        latestReceipt: String? = nil,
        latestReceiptInfo: [VerifyReceiptTransaction] = [],
        latestExpiredReceiptInfo: [VerifyReceiptTransaction] = [],
        pendingRenewalInfo: [VerifyReceiptPendingRenewalInfo] = [],
        isRetryable: Bool? = nil
    ) {
        storage = CopyOnWrite(
            Fields(
                rawStatus: rawStatus,
                rawEnvironment: rawEnvironment,
                receipt: receipt,
                latestReceipt: latestReceipt,
                latestReceiptInfo: latestReceiptInfo,
                latestExpiredReceiptInfo: latestExpiredReceiptInfo,
                pendingRenewalInfo: pendingRenewalInfo,
                isRetryable: isRetryable))
    }

    /// `status`, typed.
    public var status: VerifyReceiptStatus { VerifyReceiptStatus(rawValue: rawStatus) }

    /// `environment`, typed; nil when absent or not one Apple documents (see `rawEnvironment`).
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(appleValue:)) }

    private struct Fields: Hashable, Sendable {
        var rawStatus: Int
        var rawEnvironment: String?
        var receipt: VerifyReceiptDecodedReceipt?
        var latestReceipt: String?
        var latestReceiptInfo: [VerifyReceiptTransaction]
        var latestExpiredReceiptInfo: [VerifyReceiptTransaction]
        var pendingRenewalInfo: [VerifyReceiptPendingRenewalInfo]
        var isRetryable: Bool?
    }
}

extension VerifyReceiptResponse {
    /// Decodes a verifyReceipt response body.
    ///
    /// Accepts a leading UTF-8 byte order mark and surrounding whitespace.
    ///
    /// - Parameter keepingLatestReceipt: false leaves `latestReceipt` nil. It is a copy of receipt
    ///   data, often the largest value of the answer, that a caller without use for it would only
    ///   copy and free again.
    /// - Throws: `VerifyReceiptDecodingError` when the body is empty, not JSON (an HTML error
    ///   page), truncated or otherwise not strict JSON, not a JSON object, or has no numeric
    ///   `status`. The verification client treats all of these as transient.
    public static func decode(_ data: Data, keepingLatestReceipt: Bool = true) throws(VerifyReceiptDecodingError)
        -> VerifyReceiptResponse
    {
        let body = VerifyReceiptDecodingError.stripByteOrderMark(data)
        if let problem = VerifyReceiptDecodingError.problemBeforeParsing(body) {
            throw problem
        }
        return try VerifyReceiptAnswerReader.read(body, keepingLatestReceipt: keepingLatestReceipt)
    }
}
