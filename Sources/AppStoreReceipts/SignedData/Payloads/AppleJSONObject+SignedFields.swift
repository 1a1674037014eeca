import Foundation

/// Field readers for the decoded payloads of Apple's signed data (`SignedTransaction` and its
/// siblings). Like the verifyReceipt readers they never throw: a field in an unexpected shape
/// reads as absent, so one odd field Apple adds or changes cannot make a whole payload unreadable.
///
/// The signed payloads differ from verifyReceipt answers in two ways that need readers of their
/// own: dates are JSON numbers of milliseconds that may be fractional (Xcode writes
/// `1697680122257.447`) or negative (`-62135769600000`, `Date.distantPast`), and integers
/// (prices, ids) are plain JSON numbers where a boolean must not count as `1`.
extension AppleJSONObject {
    /// Unix milliseconds as a `Date`: an integral, fractional or negative JSON number, or a string
    /// holding one. Nil when absent, of another shape, or not finite (`1e400` overflows `Double`).
    func unixMillisecondsDate(_ key: StaticString) -> Date? {
        let text: String
        switch valueIndex(of: key).map(document.value(at:)) {
        case .number(let literal):
            text = literal
        case .string(let string):
            // Only number spellings: `Double("nan")`, `Double("inf")` and `Double("0x1p3")` parse too.
            guard !string.isEmpty, string.utf8.allSatisfy(Self.isNumberByte) else { return nil }
            text = string
        default:
            return nil
        }
        guard let milliseconds = MillisecondsLiteral.value(text), milliseconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: milliseconds / 1_000)
    }

    /// A whole number: a JSON number that is integral (`1990`, `1.0`, `1e3`) or a string of one.
    /// Nil beyond `Int64`, for fractions, booleans and anything else.
    func signedInt64(_ key: StaticString) -> Int64? {
        guard let index = valueIndex(of: key), let scalar = AppleJSONScalar(document.value(at: index)) else {
            return nil
        }
        if case .bool = scalar { return nil }
        return scalar.int64Value
    }

    /// `signedInt64` narrowed to `Int`, for counts and the integer-coded enumerations.
    func signedInt(_ key: StaticString) -> Int? {
        signedInt64(key).flatMap { Int(exactly: $0) }
    }

    /// The strings of an array; elements of another shape are skipped. Nil when not an array.
    func signedStringArray(_ key: StaticString) -> [String]? {
        guard let index = valueIndex(of: key), case .array(let elements) = document.value(at: index) else {
            return nil
        }
        return elements.compactMap { element in
            guard case .string(let text) = element else { return nil }
            return text
        }
    }

    /// A nested object; nil when absent, `null` or not an object.
    func signedObject(_ key: StaticString) -> AppleJSONObject? {
        guard let index = valueIndex(of: key), case .object(let object) = document.value(at: index) else {
            return nil
        }
        return object
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }
}
