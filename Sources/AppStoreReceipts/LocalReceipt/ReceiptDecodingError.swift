/// Why bytes could not be decoded as an App Store receipt.
///
/// Every case renders as one line of plain English naming the problem and, where it helps, the
/// byte offset. Descriptions never echo receipt bytes or decoded values: receipt data must not
/// reach logs (CONTRACT §2), and an offset is enough to find the fault in the original.
/// Offsets inside the receipt payload are relative to the payload, not to the container.
public enum ReceiptDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing but whitespace.
    case emptyInput
    /// The input is larger than any real receipt; refused before any work is done.
    case tooLarge(byteCount: Int, limit: Int)
    /// A character outside the standard base64 alphabet, misplaced padding, or a dangling
    /// final character. `offset` counts bytes of the text, whitespace included.
    case notBase64(offset: Int)
    /// Decoded bytes that are neither DER nor the text of an iOS 6 transaction receipt.
    case unrecognizedFormat
    /// An element header (tag or length) is cut off by the end of its enclosing element.
    case truncatedHeader(offset: Int)
    /// An element declares more content than its enclosing element has left.
    case lengthExceedsInput(offset: Int, declaredLength: UInt64, remaining: Int)
    /// A BER encoding rule is broken.
    case malformedDER(offset: Int, problem: BERProblem)
    /// An indefinite-length element runs to the end of its enclosure without `00 00`.
    case missingEndOfContents(offset: Int)
    /// Constructed elements nest deeper than the decoder follows.
    case nestingTooDeep(limit: Int)
    /// More elements than any receipt has; bounds the decoder's memory.
    case tooManyElements(limit: Int)
    /// Bytes follow the single top-level element.
    case trailingBytes(offset: Int)
    /// The outer structure is not a PKCS#7 ContentInfo holding SignedData.
    case notSignedData
    /// The SignedData is not the shape of a receipt container (no `data` content to read).
    case malformedSignedData(problem: String)
    /// The receipt payload is not a SET of `SEQUENCE { type, version, value }` attributes.
    case malformedPayload(problem: String)
    /// A known receipt attribute holds a value of the wrong kind.
    case invalidAttribute(type: Int, expected: String)
    /// The text of an iOS 6 transaction receipt breaks the plist syntax at `offset`.
    case malformedTransactionReceipt(offset: Int, problem: String)
    /// An iOS 6 transaction receipt lacks a key every such receipt carries.
    case missingTransactionReceiptField(String)
    /// An iOS 6 transaction receipt key holds a value of the wrong kind.
    case invalidTransactionReceiptField(String, expected: String)

    /// The BER rule an input broke.
    public enum BERProblem: String, Sendable, Hashable {
        case reservedLengthOctet = "the reserved length octet 0xFF"
        case lengthFieldTooLong = "a length field longer than 8 bytes"
        case indefiniteLengthPrimitive = "an indefinite length on a primitive element"
        case tagNumberTooLarge = "a tag number that does not fit in 28 bits"
        case strayEndOfContents = "an end-of-contents marker outside an indefinite-length element"
        case malformedEndOfContents = "an end-of-contents marker with a non-zero length"
    }

    /// True for data that is provably not a receipt before any decoding: empty, or not base64.
    /// The job records such receipts `invalid` without asking Apple (CONTRACT §4, §5).
    public var isEmptyOrNotBase64: Bool {
        switch self {
        case .emptyInput, .notBase64: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .emptyInput:
            "empty input"
        case .tooLarge(let byteCount, let limit):
            "receipt too large: \(byteCount) bytes, the limit is \(limit)"
        case .notBase64(let offset):
            "not base64: unexpected character or padding at byte \(offset)"
        case .unrecognizedFormat:
            "not a receipt: neither a PKCS#7 app receipt nor an iOS 6 transaction receipt"
        case .truncatedHeader(let offset):
            "truncated DER at byte \(offset): the element header is cut off"
        case .lengthExceedsInput(let offset, let declaredLength, let remaining):
            "truncated DER at byte \(offset): length \(declaredLength) exceeds the \(remaining) bytes left"
        case .malformedDER(let offset, let problem):
            "malformed DER at byte \(offset): \(problem.rawValue)"
        case .missingEndOfContents(let offset):
            "truncated BER: the indefinite-length element at byte \(offset) has no end-of-contents marker"
        case .nestingTooDeep(let limit):
            "nesting deeper than \(limit) levels"
        case .tooManyElements(let limit):
            "more than \(limit) DER elements"
        case .trailingBytes(let offset):
            "unexpected bytes after the receipt container at byte \(offset)"
        case .notSignedData:
            "not a PKCS#7 SignedData container"
        case .malformedSignedData(let problem):
            "malformed PKCS#7 SignedData: \(problem)"
        case .malformedPayload(let problem):
            "malformed receipt payload: \(problem)"
        case .invalidAttribute(let type, let expected):
            "receipt attribute \(type)\(LocalReceiptAttributeType.label(for: type)) is not \(expected)"
        case .malformedTransactionReceipt(let offset, let problem):
            "malformed iOS 6 transaction receipt at byte \(offset): \(problem)"
        case .missingTransactionReceiptField(let key):
            "iOS 6 transaction receipt without \"\(key)\""
        case .invalidTransactionReceiptField(let key, let expected):
            "iOS 6 transaction receipt \"\(key)\" is not \(expected)"
        }
    }
}
