/// The common spellings of numbers and booleans read straight from the document's bytes, for
/// the lenient field readers' fast paths. Each answers only where `AppleJSONScalar` would give
/// the same value, and nil otherwise, so the caller asks `AppleJSONScalar`.
extension AppleJSONDocument {
    /// The value of a string or number that is 1 to 18 decimal digits and nothing else: how
    /// Apple writes every millisecond date, quantity and status. Eighteen digits cannot
    /// overflow `Int64`; longer, signed or fractional text is left to `AppleJSONScalar`.
    func plainDigits(_ node: Node) -> Int64? {
        guard node.kind == .string || node.kind == .number, (1...18).contains(node.count) else { return nil }
        return text.withUnsafeBufferPointer { text in
            var value: Int64 = 0
            for offset in node.start..<(node.start + node.count) {
                let digit = text[offset] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
            }
            return value
        }
    }

    /// `true`/`false`, and `"true"`, `"false"`, `"1"`, `"0"`, `1`, `0`; nil for anything else.
    func plainBool(_ node: Node) -> Bool? {
        switch node.kind {
        case .true: return true
        case .false: return false
        case .string, .number:
            guard node.count <= 5 else { return nil }
            var word: UInt64 = 0
            for offset in 0..<node.count { word |= UInt64(text[node.start + offset]) << (8 * offset) }
            if word == Self.one || (node.kind == .string && word == Self.trueWord) { return true }
            if word == Self.zero || (node.kind == .string && word == Self.falseWord) { return false }
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
