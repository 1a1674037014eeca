/// Exact reading of number text (`1592575024000`, `1.0`, `1e3`, `-0`), so that no value the
/// models read passes through `Double` (which loses digits past 2^53) or `Decimal`.
enum AppleJSONNumberText {
    /// Whether `literal`, a number the parser accepted, is an integer written plainly
    /// (`-?[0-9]+`), which is how every id Apple sends as a number looks.
    static func isPlainInteger(_ literal: String) -> Bool {
        literal.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") }
    }

    /// The value of `text` if it is a number with an integral value in `Int64` range: `1.0`,
    /// `1e3`, `100e-2`, `-0.0`; nil for fractions, overflow and anything that is not a number.
    ///
    /// `text` must be a whole JSON number (`-? digits (. digits)? (e [+-]? digits)?`); `lenient`
    /// also accepts what people write in strings: a leading `+`, and no digits on one side of
    /// the point (`5.`, `.0`).
    static func integralValue(_ text: String, lenient: Bool = false) -> Int64? {
        var bytes = text.utf8[...]
        var isNegative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || (lenient && sign == UInt8(ascii: "+")) {
            isNegative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        // Significant digits of integer and fraction parts together, without leading zeros.
        var significand: [UInt8] = []
        let integerDigits = bytes.prefix(while: isDigit)
        bytes = bytes.dropFirst(integerDigits.count)
        var fractionDigits = 0
        var mantissaDigits = integerDigits.count
        for digit in integerDigits where !(significand.isEmpty && digit == UInt8(ascii: "0")) {
            significand.append(digit - UInt8(ascii: "0"))
        }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            let fraction = bytes.prefix(while: isDigit)
            bytes = bytes.dropFirst(fraction.count)
            guard lenient || !fraction.isEmpty else { return nil }
            fractionDigits = fraction.count
            mantissaDigits += fraction.count
            for digit in fraction where !(significand.isEmpty && digit == UInt8(ascii: "0")) {
                significand.append(digit - UInt8(ascii: "0"))
            }
        }
        guard mantissaDigits > 0, lenient || !integerDigits.isEmpty else { return nil }
        var exponent = 0
        if let marker = bytes.first, marker | 0x20 == UInt8(ascii: "e") {
            bytes = bytes.dropFirst()
            var exponentIsNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentIsNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            let digits = bytes.prefix(while: isDigit)
            guard !digits.isEmpty else { return nil }
            bytes = bytes.dropFirst(digits.count)
            for digit in digits {
                // Saturate: past a million digits of shift the answer is overflow or a fraction anyway.
                exponent = min(exponent * 10 + Int(digit - UInt8(ascii: "0")), 1_000_000)
            }
            if exponentIsNegative { exponent = -exponent }
        }
        guard bytes.isEmpty else { return nil }

        // value = significand × 10^shift
        while significand.last == 0 {
            significand.removeLast()
            exponent += 1
        }
        if significand.isEmpty { return 0 }
        let shift = exponent - fractionDigits
        guard shift >= 0, significand.count + shift <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in significand + repeatElement(0, count: shift) {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if isNegative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return Int64(exactly: magnitude)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
