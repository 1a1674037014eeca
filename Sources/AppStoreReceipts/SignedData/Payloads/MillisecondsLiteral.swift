/// The number a JSON number literal of Unix milliseconds spells, as `Double(_:)` reads it.
enum MillisecondsLiteral {
    /// A whole number of up to 15 digits (every date Apple signs) is read digit by digit: it is below
    /// 2^53, so its `Double` is exact and the one `Double(_:)`'s correctly rounded reading gives,
    /// without `strtod` and its copy of the text. Anything else (a fraction, an exponent, a `+`, more
    /// digits, no digit) is read by `Double(_:)` itself.
    static func value<Text: StringProtocol>(_ text: Text) -> Double? {
        var magnitude: Int64 = 0
        var digits = 0
        var negative = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") && digits == 0 && !negative {
                negative = true
                continue
            }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"), digits < 15 else { return Double(text) }
            magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        guard digits > 0 else { return Double(text) }
        // `-Double(0)` is -0.0, as `Double("-0")` reads.
        return negative ? -Double(magnitude) : Double(magnitude)
    }
}
