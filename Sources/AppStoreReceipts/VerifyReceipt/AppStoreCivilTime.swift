/// Calendar arithmetic for every date grammar this module reads or writes: Apple's
/// `2019-08-21 09:11:43 Etc/GMT` / ISO 8601, HTTP dates in `Retry-After`, and the RFC 3339 dates
/// inside receipts.
///
/// Hand-written rather than `DateFormatter` because a night's run parses millions of dates, and
/// a formatter is slow, locale-sensitive and not `Sendable`.
enum AppStoreCivilTime {
    /// Seconds since 1970-01-01T00:00:00Z of a proleptic Gregorian UTC date-time, or nil when a
    /// component is out of range (month 13, 31 February, 25 o'clock, ...).
    static func epochSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64? {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...daysInMonth(year: year, month: month)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        // A leap second (:60) is folded into the next minute, as POSIX time does.
        return daysFromCivil(year: year, month: month, day: day) * 86_400
            + Int64(hour * 3_600 + minute * 60 + second)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month and day of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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

    /// Reads exactly `count` ASCII digits at `index`; nil if any byte is not a digit.
    static func number<C: RandomAccessCollection>(_ bytes: C, at index: C.Index, count: Int) -> Int?
    where C.Element == UInt8 {
        var value = 0
        var position = index
        for _ in 0..<count {
            guard position < bytes.endIndex else { return nil }
            let byte = bytes[position]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            position = bytes.index(after: position)
        }
        return value
    }
}
