import CivilTime

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
        let utc = CivilDateTime(unixMilliseconds: milliseconds)
        let year = utc.date.year
        // Daylight time starts at 02:00 PST (10:00 UTC) and ends at 02:00 PDT (09:00 UTC).
        let start = CivilDateTime(date: nthSunday(2, month: 3, year: year), hour: 10).unixSeconds
        let end = CivilDateTime(date: nthSunday(1, month: 11, year: year), hour: 9).unixSeconds
        return utc.unixSeconds >= start && utc.unixSeconds < end ? -7 * 3600 : -8 * 3600
    }

    /// Writes `YYYY-MM-DD HH:MM:SS` of the instant shifted by `offsetSeconds`.
    static func appendCivil(_ milliseconds: Int64, offsetSeconds: Int64, into bytes: inout [UInt8]) {
        CivilDateTime(unixMilliseconds: milliseconds + offsetSeconds * 1000).appendText(separator: " ", to: &bytes)
    }

    /// The `n`th Sunday of a month.
    private static func nthSunday(_ n: Int64, month: Int64, year: Int64) -> CivilDate {
        let first = CivilDate(year: year, month: month, day: 1)
        return CivilDate(year: year, month: month, day: 1 + (7 - first.weekday) % 7 + (n - 1) * 7)
    }
}
