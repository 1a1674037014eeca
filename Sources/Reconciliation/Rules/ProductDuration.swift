import Foundation

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
            let (year, month, day) = UTCCivilDate.civil(fromDays: days)
            let monthIndex = Int64(year) * 12 + Int64(month - 1) + Int64(months)
            let newYear = Int(monthIndex.floorDiv(12))
            let newMonth = Int(monthIndex - Int64(newYear) * 12) + 1
            let newDay = min(day, UTCCivilDate.daysInMonth(year: newYear, month: newMonth))
            days = UTCCivilDate.days(year: newYear, month: newMonth, day: newDay)
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

/// Proleptic Gregorian calendar arithmetic in UTC (Howard Hinnant's algorithms), without
/// `Calendar`, so results never depend on the process's time zone or locale.
enum UTCCivilDate {
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01.
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (dates before 1970 stay on the right day).
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
