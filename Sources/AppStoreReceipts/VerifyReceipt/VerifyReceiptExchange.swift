import Foundation

/// What came back from one POST to verifyReceipt: the input of `VerifyReceiptClassifier`.
public enum VerifyReceiptExchange: Hashable, Sendable {
    /// No HTTP response.
    case transportFailed(VerifyReceiptTransportFailure)
    /// An HTTP response.
    /// - Parameters:
    ///   - statusCode: the HTTP status.
    ///   - retryAfter: the `Retry-After` header as sent, if any.
    ///   - body: the decoded body, or why it could not be decoded. Only read for 2xx statuses.
    case httpResponse(
        statusCode: Int, retryAfter: String?, body: Result<VerifyReceiptResponse, VerifyReceiptDecodingError>)

    /// An HTTP response whose body is decoded here; `keepingLatestReceipt` as in `VerifyReceiptResponse.decode`.
    public static func httpResponse(
        statusCode: Int, retryAfter: String? = nil, bodyData: Data,
        keepingLatestReceipt: Bool = true
    ) -> Self {
        let body = Result { () throws(VerifyReceiptDecodingError) in
            try VerifyReceiptResponse.decode(bodyData, keepingLatestReceipt: keepingLatestReceipt)
        }
        return .httpResponse(statusCode: statusCode, retryAfter: retryAfter, body: body)
    }

    /// The decoded response, when there is one.
    public var response: VerifyReceiptResponse? {
        guard case .httpResponse(_, _, .success(let response)) = self else { return nil }
        return response
    }
}
