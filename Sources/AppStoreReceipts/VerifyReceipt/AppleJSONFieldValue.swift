import Foundation

/// One member's value as the lenient field readers see it: its kind and, for a string or a number,
/// its UTF-8 (escapes decoded). What each field type reads from each spelling is said here once, for
/// the document's readers (`AppleJSONObject+LenientFields`) and the one-pass verifyReceipt reader
/// (`VerifyReceiptAnswerReader`) alike.
///
/// Each reading first tries the spelling Apple actually sends (`"1566378703000"`, `"1"`, `"true"`,
/// plain text) on the bytes, without building a `String` it would throw away; anything else goes
/// through `AppleJSONScalar`, the one definition of what every spelling means. The fast paths only
/// answer where that definition gives the same answer (`VerifyReceiptFastPathTests` compares the two
/// on every spelling).
struct AppleJSONFieldValue {
    let kind: AppleJSONDocument.Node.Kind
    /// Empty unless `kind` is `.string` or `.number`.
    let text: UnsafeBufferPointer<UInt8>

    /// The scalar; nil for `null`, objects and arrays.
    var scalar: AppleJSONScalar? {
        switch kind {
        case .string: .string(String(decoding: text, as: UTF8.self))
        case .number: .number(String(decoding: text, as: UTF8.self))
        case .true: .bool(true)
        case .false: .bool(false)
        case .null, .object, .array: nil
        }
    }

    /// Text; a number is rendered with all its digits (ids may come as numbers).
    var string: String? {
        kind == .string ? String(decoding: text, as: UTF8.self) : scalar?.stringValue
    }

    /// `int64Value` of the scalar.
    var int64: Int64? {
        if let value = plainDigits { return value }
        return scalar?.int64Value
    }

    var int: Int? { int64.flatMap { Int(exactly: $0) } }

    var bool: Bool? {
        switch plainBool {
        case .some(let flag): return flag
        case .none: return scalar?.boolValue
        }
    }

    /// A date in a field meant for milliseconds.
    var millisecondsDate: Date? { int64.map(AppleJSONDate.fromMilliseconds) }

    /// A date in a field meant for text, which may hold milliseconds instead.
    var textDate: Date? {
        // Digits only, in a string or a number: milliseconds (`AppleJSONDate.fromAnySpelling`).
        if let milliseconds = plainDigits { return AppleJSONDate.fromMilliseconds(milliseconds) }
        return scalar.flatMap(AppleJSONDate.fromAnySpelling)
    }

    /// The value of a string or number that is 1 to 18 decimal digits and nothing else: how
    /// Apple writes every millisecond date, quantity and status. Eighteen digits cannot
    /// overflow `Int64`; longer, signed or fractional text is left to `AppleJSONScalar`.
    var plainDigits: Int64? {
        guard kind == .string || kind == .number, (1...18).contains(text.count) else { return nil }
        var value: Int64 = 0
        for byte in text {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
        }
        return value
    }

    /// `true`/`false`, and `"true"`, `"false"`, `"1"`, `"0"`, `1`, `0`; nil for anything else.
    var plainBool: Bool? {
        switch kind {
        case .true: return true
        case .false: return false
        case .string, .number:
            guard text.count <= 5 else { return nil }
            var word: UInt64 = 0
            for offset in 0..<text.count { word |= UInt64(text[offset]) << (8 * offset) }
            if word == Self.one || (kind == .string && word == Self.trueWord) { return true }
            if word == Self.zero || (kind == .string && word == Self.falseWord) { return false }
            return nil
        default:
            return nil
        }
    }

    private static let one = littleEndian("1")
    private static let zero = littleEndian("0")
    private static let trueWord = littleEndian("true")
    private static let falseWord = littleEndian("false")

    private static func littleEndian(_ word: StaticString) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<word.utf8CodeUnitCount { value |= UInt64(word.utf8Start[offset]) << (8 * offset) }
        return value
    }
}

extension AppleJSONDocument {
    /// The value at `index` on the tape, as the lenient readers read it.
    func withField<Result>(at index: Int, _ body: (AppleJSONFieldValue) -> Result) -> Result {
        let node = tape[index]
        // Containers' `start` and `count` are not text.
        let hasText = node.kind == .string || node.kind == .number
        return text.withUnsafeBufferPointer { text in
            let range = hasText ? node.start..<(node.start + node.count) : 0..<0
            return body(AppleJSONFieldValue(kind: node.kind, text: UnsafeBufferPointer(rebasing: text[range])))
        }
    }
}
