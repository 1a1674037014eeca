import Foundation
import Postgres

/// `products.duration`: a PostgreSQL `interval` (months, days, microseconds), kept apart from the
/// Postgres module so the rules stay free of I/O. Build it from a `PostgresInterval` field by field.
public struct ProductDuration: Hashable, Sendable, CustomStringConvertible {
    public var months: Int32
    public var days: Int32
    public var microseconds: Int64

    public init(months: Int32 = 0, days: Int32 = 0, microseconds: Int64 = 0) {
        self.months = months
        self.days = days
        self.microseconds = microseconds
    }

    /// `start + duration` the way PostgreSQL adds an interval to a `timestamptz` in a UTC session:
    /// months first (the day of month clamped to the month's length, so January 31 + 1 month is
    /// the last day of February), then days, then microseconds.
    ///
    /// UTC, not the app's time zone: the job has no other, and PostgreSQL gives the same result
    /// in UTC for every interval without months or days (docs/reconciliation-rules.md).
    public func end(from start: Date) -> Date {
        let micros = Int64((start.timeIntervalSince1970 * 1_000_000).rounded())
        let microsPerDay: Int64 = 86_400_000_000
        var days = micros.floorDiv(microsPerDay)
        let microOfDay = micros - days * microsPerDay

        if months != 0 {
            // Proleptic Gregorian arithmetic without `Calendar`: never the process's time zone or locale.
            let (year, month, day) = CivilCalendar.civil(fromDays: days)
            let monthIndex = year * 12 + (month - 1) + Int64(months)
            let newYear = monthIndex.floorDiv(12)
            let newMonth = monthIndex - newYear * 12 + 1
            let newDay = min(day, CivilCalendar.daysInMonth(year: newYear, month: newMonth))
            days = CivilCalendar.days(fromCivil: newYear, newMonth, newDay)
        }
        days += Int64(self.days)
        let result = days * microsPerDay + microOfDay + microseconds
        return Date(timeIntervalSince1970: Double(result) / 1_000_000)
    }

    /// ISO 8601 with designators, like `PostgresInterval`: `P1M`, `P30D`, `PT3600S`.
    public var description: String {
        var text = "P"
        if months != 0 { text += "\(months)M" }
        if days != 0 { text += "\(days)D" }
        if microseconds != 0 || (months == 0 && days == 0) {
            let seconds = Double(microseconds) / 1_000_000
            text += microseconds % 1_000_000 == 0 ? "T\(microseconds / 1_000_000)S" : "T\(seconds)S"
        }
        return text
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (dates before 1970 stay on the right day).
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
