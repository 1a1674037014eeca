import Foundation

/// The JSON body POSTed to verifyReceipt.
///
/// It holds a receipt and the shared secret, so its `description`, `debugDescription` and
/// mirror (`dump`) are redacted: errors and logs may print a request.
///
/// See Apple's [requestBody](https://developer.apple.com/documentation/appstorereceipts/requestbody).
public struct VerifyReceiptRequest: Hashable, Sendable {
    /// `receipt-data`: the base64 receipt, with any whitespace removed.
    public var receiptData: String
    /// `password`: the app-specific shared secret; omitted from the body when nil.
    public var password: String?
    /// `exclude-old-transactions`: only the newest renewal per subscription in `latest_receipt_info`.
    public var excludeOldTransactions: Bool

    /// - Parameters:
    ///   - receiptData: base64 receipt as stored. Whitespace and line breaks are removed,
    ///     because stored receipts often carry them and Apple answers 21002 to them.
    ///   - password: the shared secret (CONTRACT: `APPLE_SHARED_SECRET`), or nil to omit it.
    ///   - excludeOldTransactions: defaults to true, which keeps responses small; the job
    ///     needs the newest period of each subscription, and `in_app` still lists the rest.
    public init(receiptData: String, password: String? = nil, excludeOldTransactions: Bool = true) {
        self.receiptData = receiptData.contains(where: \.isWhitespace)
            ? receiptData.filter { !$0.isWhitespace }
            : receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    /// The body to POST, as UTF-8 JSON.
    public func jsonBody() throws -> Data {
        let encoder = JSONEncoder()
        // Fixed key order, so identical requests are identical bytes (recorded-transport tests).
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension VerifyReceiptRequest: Encodable {
    private enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data"
        case password
        case excludeOldTransactions = "exclude-old-transactions"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(receiptData, forKey: .receiptData)
        try container.encodeIfPresent(password, forKey: .password)
        try container.encode(excludeOldTransactions, forKey: .excludeOldTransactions)
    }
}
