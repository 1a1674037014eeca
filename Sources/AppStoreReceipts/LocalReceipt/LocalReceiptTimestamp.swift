import Foundation

/// Receipt dates to and from text, by hand: the formats are narrow, `ISO8601DateFormatter` is
/// slow and not `Sendable`, and a hand-written parser cannot be talked into a surprise.
///
/// Dates are held to the millisecond, the finest precision any receipt carries (`*-date-ms`).
enum LocalReceiptTimestamp {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    static let earliestMilliseconds: Int64 = -62_135_596_800_000
    static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// Parses the dates receipts carry:
    /// `2024-02-23T17:27:16Z` (RFC 3339, app receipts), optionally with a fraction of a second
    /// or a numeric offset (`+01:00`, `+0100`, `+01`), `2012-04-30 15:05:55 Etc/GMT` (iOS 6),
    /// and those without a zone, read as UTC. Returns nil for anything else.
    static func parse(_ text: some Collection<UInt8>) -> Date? {
        guard text.count <= 64 else { return nil }  // longer than any date format; never copied
        var scanner = Scanner(bytes: Array(text))
        guard let year = scanner.digits(4), scanner.skip(UInt8(ascii: "-")),
              let month = scanner.digits(2), scanner.skip(UInt8(ascii: "-")),
              let day = scanner.digits(2),
              scanner.skip(UInt8(ascii: "T")) || scanner.skip(UInt8(ascii: " ")),
              let hour = scanner.digits(2), scanner.skip(UInt8(ascii: ":")),
              let minute = scanner.digits(2), scanner.skip(UInt8(ascii: ":")),
              let second = scanner.digits(2)
        else { return nil }
        var milliseconds: Int64 = 0
        if scanner.skip(UInt8(ascii: ".")) {
            var count = 0
            while let digit = scanner.digit() {
                count += 1
                guard count <= 9 else { return nil }
                if count <= 3 { milliseconds = milliseconds * 10 + digit }
            }
            guard count > 0 else { return nil }
            for _ in min(count, 3) ..< 3 { milliseconds *= 10 }
        }
        guard (1 ... 12).contains(month), (1 ... daysInMonth(year: year, month: month)).contains(day),
              hour < 24, minute < 60, second <= 60  // 60: a leap second, as RFC 3339 allows
        else { return nil }
        guard let offsetMinutes = scanner.zoneOffsetMinutes(), scanner.isAtEnd else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute - offsetMinutes) * 60 + second
        return date(milliseconds: seconds * 1000 + milliseconds)
    }

    /// Parses a decimal count of milliseconds since 1970 (iOS 6 `*-date-ms`, `expires-date`).
    /// A leading minus is accepted so that dates before 1970 survive the encoder's round trip.
    static func parseMilliseconds(_ text: String) -> Date? {
        let utf8 = text.utf8
        let digits = utf8.first == UInt8(ascii: "-") ? utf8.dropFirst() : utf8[...]
        guard !digits.isEmpty, digits.count <= 16, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let value = Int64(text)
        else { return nil }
        return date(milliseconds: value)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.SSS` before the `Z` only when there are milliseconds.
    static func format(_ date: Date) -> String {
        let (civil, milliseconds) = components(date)
        var text = civil.joined(dateTimeSeparator: "T")
        if milliseconds != 0 { text += "." + pad(milliseconds, 3) }
        return text + "Z"
    }

    /// `YYYY-MM-DD HH:MM:SS Etc/GMT`, the text form of iOS 6 receipts.
    static func formatTransactionReceipt(_ date: Date) -> String {
        components(date).civil.joined(dateTimeSeparator: " ") + " Etc/GMT"
    }

    /// Milliseconds since 1970, clamped to years 1 through 9999.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value < 0 ? earliestMilliseconds : latestMilliseconds }
        if value <= Double(earliestMilliseconds) { return earliestMilliseconds }
        if value >= Double(latestMilliseconds) { return latestMilliseconds }
        return Int64(value)
    }

    private static func date(milliseconds: Int64) -> Date? {
        guard (earliestMilliseconds ... latestMilliseconds).contains(milliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private struct Civil {
        var year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64

        func joined(dateTimeSeparator: String) -> String {
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))\(dateTimeSeparator)"
                + "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        }
    }

    private static func components(_ date: Date) -> (civil: Civil, milliseconds: Int64) {
        let total = milliseconds(date)
        let (seconds, milliseconds) = floorDivide(total, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilFromDays(days)
        let civil = Civil(
            year: year, month: month, day: day,
            hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60
        )
        return (civil, milliseconds)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days: proleptic Gregorian, no tables.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func skip(_ text: String) -> Bool {
            let literal = Array(text.utf8)
            guard bytes.count - position >= literal.count,
                  bytes[position ..< position + literal.count].elementsEqual(literal)
            else { return false }
            position += literal.count
            return true
        }

        mutating func digit() -> Int64? {
            guard position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 else { return nil }
            position += 1
            return Int64(bytes[position - 1] - 0x30)
        }

        mutating func digits(_ count: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0 ..< count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        /// The zone suffix as minutes east of UTC: none, `Z`, `±hh[:mm]`, or a spelled UTC zone.
        mutating func zoneOffsetMinutes() -> Int64? {
            if isAtEnd || skip(UInt8(ascii: "Z")) { return 0 }
            for name in [" Etc/GMT", " Etc/UTC", " GMT", " UTC"] where skip(name) {
                return 0
            }
            let sign: Int64
            if skip(UInt8(ascii: "+")) {
                sign = 1
            } else if skip(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let hours = digits(2), hours < 24 else { return nil }
            var minutes: Int64 = 0
            if !isAtEnd {
                _ = skip(UInt8(ascii: ":"))
                guard let value = digits(2), value < 60 else { return nil }
                minutes = value
            }
            return sign * (hours * 60 + minutes)
        }
    }
}
