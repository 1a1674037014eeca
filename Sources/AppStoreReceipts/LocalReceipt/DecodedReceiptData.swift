/// Stored receipt data decoded once for two readers: the receipt it describes, and what a check of
/// its PKCS#7 signature reads (`ReceiptSignatureVerifier.verify(_:)`), the raw bytes and the
/// container already parsed. Where the job both reads a receipt and checks its signature (the Server
/// API backend), the base64 is then decoded and the container parsed once rather than once each.
public struct DecodedReceiptData: Sendable {
    /// The receipt, in-app purchases included: what `LocalReceiptDecoder.decode(base64:)` returns.
    public let receipt: LocalReceipt
    /// The receipt's raw bytes (the base64 decoded, through a second encoding when there is one).
    let bytes: [UInt8]
    /// The BER parse of `bytes` when they are a PKCS#7 app receipt; nil for an iOS 6 receipt.
    let container: BERDocument?
}

extension LocalReceiptDecoder {
    /// `decode(base64:)`, keeping what the signature check reads: it accepts and rejects exactly what
    /// `decode(base64:)` does, with the same errors.
    public static func decodeData(base64: String) throws(ReceiptDecodingError) -> DecodedReceiptData {
        let bytes = try receiptBytes(base64Text: base64.utf8)
        guard bytes.first == 0x30 else {
            return DecodedReceiptData(receipt: try decode(receiptBytes: bytes), bytes: bytes, container: nil)
        }
        let container = try BERDocument(parsing: bytes[...])
        let receipt = try decodeAppReceipt(container, byteCount: bytes.count)
        return DecodedReceiptData(receipt: receipt, bytes: bytes, container: container)
    }
}
