import Foundation

/// A length of calendar time as PostgreSQL's `interval` holds one: months, days and microseconds,
/// each kept apart because none converts to another (a month is 28 to 31 days, and in a zone with
/// daylight saving a day is 23 to 25 hours). A year is twelve months, a week seven days.
///
/// `products.duration` is one; the Postgres module reads and binds it as an `interval`.
public struct CalendarDuration: Hashable, Sendable, CustomStringConvertible {
    public var months: Int32
    public var days: Int32
    public var microseconds: Int64

    public init(months: Int32 = 0, days: Int32 = 0, microseconds: Int64 = 0) {
        self.months = months
        self.days = days
        self.microseconds = microseconds
    }

    public static func seconds(_ seconds: Int64) -> CalendarDuration {
        CalendarDuration(microseconds: seconds * 1_000_000)
    }

    /// `start + self` the way PostgreSQL adds an interval to a `timestamptz` in a UTC session:
    /// months first (the day of the month clamped to the new month's length, so January 31 plus
    /// one month is the last day of February), then days, then microseconds.
    ///
    /// UTC, not the app's time zone: the job has no other, and PostgreSQL gives the same result
    /// in UTC for every interval without months or days (docs/reconciliation-rules.md).
    public func added(toUnixMicroseconds start: Int64) -> Int64 {
        var civil = CivilDateTime(unixMicroseconds: start)
        if months != 0 { civil.date = civil.date.addingMonths(Int64(months)) }
        return civil.unixMicroseconds + Int64(days) * 86_400_000_000 + microseconds
    }

    /// `start + self` (see `added(toUnixMicroseconds:)`), with `start` rounded to the microsecond.
    public func added(to start: Date) -> Date {
        Date(unixMicroseconds: added(toUnixMicroseconds: start.unixMicroseconds))
    }

    /// ISO 8601 with designators, `P14M3DT4.5S`, the form `IntervalStyle = iso_8601` prints and
    /// that PostgreSQL reads under any IntervalStyle: months, days and seconds, each only when not
    /// zero (`PT0S` for nothing), the seconds exact to the microsecond.
    public var description: String {
        var text = "P"
        if months != 0 { text += "\(months)M" }
        if days != 0 { text += "\(days)D" }
        if microseconds != 0 || (months == 0 && days == 0) {
            let sign = microseconds < 0 ? "-" : ""
            let magnitude = microseconds.magnitude
            var seconds = "\(sign)\(magnitude / 1_000_000)"
            let fraction = magnitude % 1_000_000
            if fraction != 0 {
                var digits = String(fraction)
                digits = String(repeating: "0", count: 6 - digits.count) + digits
                while digits.hasSuffix("0") { digits.removeLast() }
                seconds += ".\(digits)"
            }
            text += "T\(seconds)S"
        }
        return text
    }
}
