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
        civil(seconds: floorSeconds(milliseconds)) + " Etc/GMT"
    }

    /// `YYYY-MM-DD HH:MM:SS America/Los_Angeles`.
    static func pacific(_ milliseconds: Int64) -> String {
        let seconds = floorSeconds(milliseconds)
        return civil(seconds: seconds + pacificOffset(utcSeconds: seconds)) + " America/Los_Angeles"
    }

    /// UTC offset of America/Los_Angeles at an instant: -7 h in daylight time, -8 h otherwise.
    static func pacificOffset(utcSeconds: Int64) -> Int64 {
        let year = CivilCalendar.civil(fromDays: floorDivide(utcSeconds, 86_400)).year
        // Daylight time starts at 02:00 PST (10:00 UTC) and ends at 02:00 PDT (09:00 UTC).
        let start = nthSunday(2, month: 3, year: year) * 86_400 + 10 * 3600
        let end = nthSunday(1, month: 11, year: year) * 86_400 + 9 * 3600
        return utcSeconds >= start && utcSeconds < end ? -7 * 3600 : -8 * 3600
    }

    /// Days since 1970 of the `n`th Sunday of a month.
    private static func nthSunday(_ n: Int64, month: Int64, year: Int64) -> Int64 {
        let first = CivilCalendar.days(fromCivil: year, month, 1)
        // 1970-01-01 was a Thursday: weekday 0 = Sunday.
        let weekday = (first + 4) - floorDivide(first + 4, 7) * 7
        let firstSunday = first + (7 - weekday) % 7
        return firstSunday + (n - 1) * 7
    }

    private static func civil(seconds: Int64) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        var text = ""
        text.reserveCapacity(19)
        append(year, 4, to: &text)
        text += "-"
        append(month, 2, to: &text)
        text += "-"
        append(day, 2, to: &text)
        text += " "
        append(secondOfDay / 3600, 2, to: &text)
        text += ":"
        append(secondOfDay / 60 % 60, 2, to: &text)
        text += ":"
        append(secondOfDay % 60, 2, to: &text)
        return text
    }

    private static func append(_ value: Int64, _ width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }

    private static func floorSeconds(_ milliseconds: Int64) -> Int64 {
        floorDivide(milliseconds, 1000)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
