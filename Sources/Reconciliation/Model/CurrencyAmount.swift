import Postgres

/// An amount of money in thousandths of its currency's unit, Apple's milliunits (`price` 1990 is
/// 1.99), printed and stored as an exact decimal in currency units (CONTRACT §9, "Finance").
///
/// Why an integer and not `Double` or `Decimal`: Apple sends integers, sums of them stay exact,
/// and the text (`1.99`, `10`, never `1.990000000000002`) is written digit by digit into the
/// writer's array literal without an intermediate `String` (`CurrencyAmount+Postgres.swift`).
public struct CurrencyAmount: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliunits: Int64

    public init(milliunits: Int64) {
        self.milliunits = milliunits
    }

    /// The amount of a decimal text in currency units (`19.98`, `10`, `-0.5`, `1.990`).
    /// - Returns: nil for anything else, or for a value finer than a milliunit or beyond `Int64`
    ///   milliunits; the job only ever writes milliunits, so such a value is not its own.
    public init?(decimal text: some StringProtocol) {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        var fraction = parts.count == 2 ? parts[1] : ""
        while fraction.count > 3, fraction.last == "0" { fraction = fraction.dropLast() }
        guard !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit), parts.count == 1 || !parts[1].isEmpty,
            fraction.count <= 3, fraction.allSatisfy(\.isASCIIDigit), let units = Int64(whole)
        else { return nil }
        let thousandths = Int64(fraction + String(repeating: "0", count: 3 - fraction.count))!
        let (scaled, overflow) = units.multipliedReportingOverflow(by: 1_000)
        guard !overflow else { return nil }
        let (sum, overflowed) = scaled.addingReportingOverflow(thousandths)
        guard !overflowed else { return nil }
        milliunits = negative ? -sum : sum
    }

    /// The exact decimal in currency units, without trailing zeros: `1.99`, `10`, `-0.5`.
    public var description: String {
        var bytes: [UInt8] = []
        appendDecimalText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `description`'s bytes, appended.
    @inlinable
    public func appendDecimalText(to bytes: inout [UInt8]) {
        if milliunits < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = milliunits.magnitude
        (magnitude / 1_000).appendDecimalDigits(to: &bytes)
        var fraction = magnitude % 1_000
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var scale: UInt64 = 1
        for _ in 1..<digits { scale *= 10 }
        while scale > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / scale % 10))
            scale /= 10
        }
    }

    public static func < (lhs: CurrencyAmount, rhs: CurrencyAmount) -> Bool { lhs.milliunits < rhs.milliunits }

    public static func + (lhs: CurrencyAmount, rhs: CurrencyAmount) -> CurrencyAmount {
        CurrencyAmount(milliunits: lhs.milliunits + rhs.milliunits)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

extension CurrencyAmount {
    public static let zero = CurrencyAmount(milliunits: 0)
}

/// A JSON string, not a number: `"19.98"` stays exact in any reader (a JSON number is a double
/// in most of them).
extension CurrencyAmount: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let amount = CurrencyAmount(decimal: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an amount in milliunits")
        }
        self = amount
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
