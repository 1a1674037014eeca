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
        // Stored receipts are ASCII base64: a word scan decides, instead of Unicode properties per Character.
        let plain = Self.bytes(of: receiptData) { ByteWords.isPrintableASCII(UnsafeRawBufferPointer($0)) }
        self.receiptData = plain ? receiptData : receiptData.filter { !$0.isWhitespace }
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    /// The body to POST, as UTF-8 JSON, keys in sorted order (identical requests are identical
    /// bytes). Written directly rather than through JSONEncoder: it is built for every request of
    /// a run, and three known keys need no general encoder.
    public func jsonBody() throws -> Data {
        var body: [UInt8] = []
        body.reserveCapacity(receiptData.utf8.count + (password?.utf8.count ?? 0) + 80)
        body.append(contentsOf: #"{"exclude-old-transactions":"#.utf8)
        body.append(contentsOf: (excludeOldTransactions ? "true" : "false").utf8)
        if let password {
            body.append(contentsOf: #","password":"#.utf8)
            JSONString.append(password, to: &body, style: .encoder)
        }
        body.append(contentsOf: #","receipt-data":"#.utf8)
        JSONString.append(receiptData, to: &body, style: .encoder)
        body.append(UInt8(ascii: "}"))
        return Data(body)
    }

    /// `text`'s UTF-8 as one buffer: scanning a receipt through `String.UTF8View`'s iterator costs
    /// more than the rest of the request.
    private static func bytes<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
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
