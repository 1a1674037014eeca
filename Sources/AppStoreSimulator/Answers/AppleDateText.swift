import Postgres

/// Apple's three spellings of an instant in verifyReceipt answers:
/// `2021-11-13 13:07:46 Etc/GMT`, `1636808866000`, `2021-11-13 05:07:46 America/Los_Angeles`.
///
/// By hand, because an answer has dozens of dates and `DateFormatter` is slow and not `Sendable`.
/// Pacific time follows the US rule in force since 2007: daylight time from the second Sunday of March,
/// 02:00 standard time, to the first Sunday of November, 02:00 daylight time.
enum AppleDateText {
    /// `YYYY-MM-DD HH:MM:SS Etc/GMT` (milliseconds dropped, as Apple does).
    static func gmt(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        appendCivil(milliseconds, offsetSeconds: 0, into: &bytes)
        return String(decoding: bytes, as: UTF8.self) + " Etc/GMT"
    }

    /// `YYYY-MM-DD HH:MM:SS America/Los_Angeles`.
    static func pacific(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        appendCivil(milliseconds, offsetSeconds: pacificOffset(milliseconds: milliseconds), into: &bytes)
        return String(decoding: bytes, as: UTF8.self) + " America/Los_Angeles"
    }

    /// UTC offset of America/Los_Angeles at an instant: -7 h in daylight time, -8 h otherwise.
    static func pacificOffset(milliseconds: Int64) -> Int64 {
        let utcSeconds = floorDivide(milliseconds, 1000)
        let year = CivilCalendar.civil(fromDays: floorDivide(utcSeconds, 86_400)).year
        // Daylight time starts at 02:00 PST (10:00 UTC) and ends at 02:00 PDT (09:00 UTC).
        let start = nthSunday(2, month: 3, year: year) * 86_400 + 10 * 3600
        let end = nthSunday(1, month: 11, year: year) * 86_400 + 9 * 3600
        return utcSeconds >= start && utcSeconds < end ? -7 * 3600 : -8 * 3600
    }

    /// Writes `YYYY-MM-DD HH:MM:SS` of the instant shifted by `offsetSeconds`.
    static func appendCivil(_ milliseconds: Int64, offsetSeconds: Int64, into bytes: inout [UInt8]) {
        let seconds = floorDivide(milliseconds, 1000) + offsetSeconds
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        func two(_ value: Int64) {
            bytes.append(UInt8(0x30 + value / 10 % 10))
            bytes.append(UInt8(0x30 + value % 10))
        }
        two(year / 100)
        two(year % 100)
        bytes.append(UInt8(ascii: "-"))
        two(month)
        bytes.append(UInt8(ascii: "-"))
        two(day)
        bytes.append(UInt8(ascii: " "))
        two(secondOfDay / 3600)
        bytes.append(UInt8(ascii: ":"))
        two(secondOfDay / 60 % 60)
        bytes.append(UInt8(ascii: ":"))
        two(secondOfDay % 60)
    }

    /// Days since 1970 of the `n`th Sunday of a month.
    private static func nthSunday(_ n: Int64, month: Int64, year: Int64) -> Int64 {
        let first = CivilCalendar.days(fromCivil: year, month, 1)
        // 1970-01-01 was a Thursday; weekday 0 is Sunday.
        let weekday = (first + 4) - floorDivide(first + 4, 7) * 7
        let firstSunday = first + (7 - weekday) % 7
        return firstSunday + (n - 1) * 7
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
