import Foundation

/// Why a verifyReceipt response body could not be read.
///
/// Descriptions are one line and never contain the body beyond its first few characters, and
/// not even those when they look like receipt data (long runs of base64).
public enum VerifyReceiptDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No bytes, or only whitespace.
    case emptyBody
    /// The body does not start like JSON; `prefix` is its sanitized beginning (`<html>`).
    case notJSON(prefix: String)
    /// Valid-looking JSON that is not an object; `kind` is `an array`, `a string`, ...
    case notAnObject(kind: String)
    /// An object that cannot be parsed: cut off in transit, or corrupt.
    case malformedJSON(byteCount: Int)
    /// A JSON object without `status` (or with `"status": null`).
    case missingStatus
    /// `status` is present but not an integer.
    case statusNotANumber

    public var description: String {
        switch self {
        case .emptyBody: "response body is empty"
        case .notJSON(let prefix): "response is not JSON (starts with '\(prefix)')"
        case .notAnObject(let kind): "response is JSON but not an object (\(kind))"
        case .malformedJSON(let byteCount): "response is not valid JSON (truncated or corrupt, \(byteCount) bytes)"
        case .missingStatus: "response has no status"
        case .statusNotANumber: "response status is not a number"
        }
    }
}

extension VerifyReceiptDecodingError {
    static let prefixLimit = 40
    /// A run of this many base64 characters is treated as possible receipt data and not shown.
    static let base64RunLimit = 24

    static func stripByteOrderMark(_ data: Data) -> Data {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(data.dropFirst(3)) : data
    }

    /// The problems visible from the first significant byte, found without running the parser.
    static func problemBeforeParsing(_ body: Data) -> VerifyReceiptDecodingError? {
        guard let start = body.firstIndex(where: { !isJSONWhitespace($0) }) else { return .emptyBody }
        switch body[start] {
        case UInt8(ascii: "{"): return nil
        case UInt8(ascii: "["): return .notAnObject(kind: "an array")
        case UInt8(ascii: "\""): return .notAnObject(kind: "a string")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .notAnObject(kind: "a number")
        case UInt8(ascii: "t") where body[start...].starts(with: Array("true".utf8)),
            UInt8(ascii: "f") where body[start...].starts(with: Array("false".utf8)):
            return .notAnObject(kind: "a boolean")
        case UInt8(ascii: "n") where body[start...].starts(with: Array("null".utf8)):
            return .notAnObject(kind: "null")
        default: return .notJSON(prefix: sanitizedPrefix(body[start...]))
        }
    }

    /// The first line of the body, at most `prefixLimit` printable ASCII characters, with
    /// anything that could be receipt data replaced.
    static func sanitizedPrefix(_ bytes: Data.SubSequence) -> String {
        var characters: [Character] = []
        var base64Run = 0
        var longestBase64Run = 0
        for byte in bytes.prefix(prefixLimit) {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            let isPrintable = byte >= 0x20 && byte < 0x7F
            characters.append(isPrintable ? Character(Unicode.Scalar(byte)) : "?")
            let isBase64 =
                isPrintable
                && (Character(Unicode.Scalar(byte)).isLetter
                    || Character(Unicode.Scalar(byte)).isNumber || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "/")
                    || byte == UInt8(ascii: "="))
            base64Run = isBase64 ? base64Run + 1 : 0
            longestBase64Run = max(longestBase64Run, base64Run)
        }
        if longestBase64Run >= base64RunLimit { return "[base64-like data]" }
        return String(characters).trimmingCharacters(in: .whitespaces)
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
