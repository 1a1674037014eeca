/// Decodes App Store receipts locally: PKCS#7 app receipts (iOS 7+, App Store DER and Xcode
/// BER) and iOS 6 transaction receipts. No signature check, no network.
///
/// Built for hostile bytes: it throws a `ReceiptDecodingError` for anything that is not a
/// receipt and never traps, hangs, or allocates more than a small multiple of its input, which
/// is itself capped. All entry points are pure and safe to call from any thread.
public enum LocalReceiptDecoder {
    /// The most base64 text accepted, whitespace included. Real receipts are kilobytes; a
    /// receipt with years of weekly renewals stays well under 1 MB.
    public static let maxBase64Length = 4 * 1024 * 1024
    /// The most raw receipt bytes accepted (the decoded size of `maxBase64Length`).
    public static let maxByteCount = maxBase64Length / 4 * 3

    /// Decodes base64 receipt data as stored in `receipts.receipt_data` and sent to
    /// verifyReceipt. Whitespace anywhere is ignored. Receipts that were base64-encoded twice
    /// (the decoded bytes are themselves base64 text of a receipt) are decoded through.
    public static func decode(base64: String) throws(ReceiptDecodingError) -> LocalReceipt {
        try decode(base64Text: base64.utf8)
    }

    /// `decode(base64:)` without the in-app purchases (attribute 17) of an app receipt: what the
    /// job needs before asking Apple (environment, bundle id) at a fraction of the cost. It
    /// accepts whatever `decode(base64:)` accepts and may accept a receipt whose purchases are
    /// malformed, which only the full decoding rejects.
    public static func decodeSummary(base64: String) throws(ReceiptDecodingError) -> LocalReceipt {
        try decode(base64Text: base64.utf8, purchases: false)
    }

    /// `decode(base64:)` over the UTF-8 bytes of the text, e.g. a file read as `Data`.
    public static func decode(base64Text: some Collection<UInt8>) throws(ReceiptDecodingError) -> LocalReceipt {
        try decode(base64Text: base64Text, purchases: true)
    }

    private static func decode(base64Text: some Collection<UInt8>, purchases: Bool) throws(ReceiptDecodingError)
        -> LocalReceipt
    {
        try decode(receiptBytes: try receiptBytes(base64Text: base64Text), purchases: purchases)
    }

    /// The raw receipt bytes that base64 text carries.
    static func receiptBytes(base64Text: some Collection<UInt8>) throws(ReceiptDecodingError) -> [UInt8] {
        guard base64Text.count <= maxBase64Length else {
            throw .tooLarge(byteCount: base64Text.count, limit: maxBase64Length)
        }
        var bytes = try LocalReceiptBase64.decode(base64Text)
        // Only one level: a second decode yields bytes that are either a receipt or not. If it
        // fails, the text was still valid base64, so the error must not say otherwise: the
        // once-decoded bytes are judged instead (and are not a receipt).
        if LocalReceiptBase64.isNestedReceiptText(bytes), let inner = try? LocalReceiptBase64.decode(bytes) {
            bytes = inner
        }
        return bytes
    }

    /// Decodes raw receipt bytes: a PKCS#7 container, or the plist text of an iOS 6
    /// transaction receipt.
    public static func decode(bytes: some Collection<UInt8>) throws(ReceiptDecodingError) -> LocalReceipt {
        guard bytes.count <= maxByteCount else { throw .tooLarge(byteCount: bytes.count, limit: maxByteCount) }
        return try decode(receiptBytes: Array(bytes))
    }

    /// Decodes a PKCS#7 app receipt given as DER or BER bytes (e.g. `Bundle.appStoreReceiptURL`).
    public static func decode(der: some Collection<UInt8>) throws(ReceiptDecodingError) -> LocalReceipt {
        guard der.count <= maxByteCount else { throw .tooLarge(byteCount: der.count, limit: maxByteCount) }
        guard !der.isEmpty else { throw .emptyInput }
        return try decodeAppReceipt(Array(der)[...])
    }

    static func decode(receiptBytes bytes: [UInt8], purchases: Bool = true) throws(ReceiptDecodingError)
        -> LocalReceipt
    {
        guard let first = bytes.first else { throw .emptyInput }
        // A PKCS#7 receipt is a SEQUENCE (0x30); a transaction receipt is text opening with `{`.
        if first == 0x30 { return try decodeAppReceipt(bytes[...], purchases: purchases) }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let text = bytes[start...].drop { $0 == 0x20 || (0x09...0x0D).contains($0) }
        if text.first == UInt8(ascii: "{") { return try decodeTransactionReceipt(bytes) }
        throw .unrecognizedFormat
    }
}
