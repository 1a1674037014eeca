import CivilTime

/// `interval` values: bound as their ISO 8601 `description`, read back from the `iso_8601`
/// IntervalStyle every connection sets.
extension CalendarDuration {
    /// Parses the `iso_8601` IntervalStyle output: `P1Y2M3DT4H5M6.789S`, `PT0S`, `P-1Y-2M`, `PT-4H-5M-6.5S`.
    public init(iso8601 text: String) throws {
        var months: Int64 = 0
        var days: Int64 = 0
        var micros: Int64 = 0
        var bytes = Substring(text)
        guard bytes.first == "P" else { throw PostgresError.decoding("'\(text)' is not an ISO 8601 interval") }
        bytes = bytes.dropFirst()
        var inTime = false
        while !bytes.isEmpty {
            if bytes.first == "T" {
                inTime = true
                bytes = bytes.dropFirst()
                continue
            }
            let numberText = bytes.prefix { $0 == "-" || $0 == "+" || $0 == "." || $0.isNumber }
            bytes = bytes.dropFirst(numberText.count)
            guard let designator = bytes.first, !numberText.isEmpty else {
                throw PostgresError.decoding("'\(text)' is not an ISO 8601 interval")
            }
            bytes = bytes.dropFirst()
            let (whole, fractionMicros) = try Self.split(numberText, in: text)
            switch (inTime, designator) {
            case (false, "Y"): months += whole * 12
            case (false, "M"): months += whole
            case (false, "W"): days += whole * 7
            case (false, "D"): days += whole
            case (true, "H"): micros += whole * 3_600_000_000 + fractionMicros * 3600
            case (true, "M"): micros += whole * 60_000_000 + fractionMicros * 60
            case (true, "S"): micros += whole * 1_000_000 + fractionMicros
            default: throw PostgresError.decoding("'\(text)' is not an ISO 8601 interval")
            }
        }
        guard let m = Int32(exactly: months), let d = Int32(exactly: days) else {
            throw PostgresError.decoding("'\(text)' is out of range")
        }
        self.init(months: m, days: d, microseconds: micros)
    }

    /// "-6.5" → (-6, -500000): the fraction in microseconds, carrying the sign of the number.
    private static func split(_ number: Substring, in text: String) throws -> (Int64, Int64) {
        let negative = number.hasPrefix("-")
        let unsigned = number.drop { $0 == "-" || $0 == "+" }
        let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int64(parts[0].isEmpty ? "0" : parts[0]) else {
            throw PostgresError.decoding("'\(text)' is not an ISO 8601 interval")
        }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = String(parts[1].prefix(6))
            guard let value = Int64(digits.isEmpty ? "0" : digits) else {
                throw PostgresError.decoding("'\(text)' is not an ISO 8601 interval")
            }
            fraction = value * Int64([1, 100_000, 10_000, 1000, 100, 10, 1][digits.count])
        }
        return negative ? (-whole, -fraction) : (whole, fraction)
    }
}

extension CalendarDuration: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: description, typeOID: PostgresTypeOID.interval) }

    public static func decode(postgresText text: String?) throws -> CalendarDuration {
        try CalendarDuration(iso8601: try requireText(text))
    }
}
