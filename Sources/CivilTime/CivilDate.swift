/// A day of the proleptic Gregorian calendar: today's leap-year rules carried back before 1582,
/// with year 0 for 1 BC, as PostgreSQL, ISO 8601 and Apple's receipts count.
///
/// Arithmetic by hand (Howard Hinnant's `days_from_civil` / `civil_from_days`) rather than with
/// `Calendar`, which follows the process's time zone and locale unless told otherwise, switches
/// to the Julian calendar before 1582, and is slow where instants are formatted by the ten thousand.
public struct CivilDate: Hashable, Sendable {
    public var year: Int64
    /// 1 for January through 12 for December.
    public var month: Int64
    public var day: Int64

    /// Takes the fields as they are; check `isValid` before converting fields read from text,
    /// since out-of-range fields name some other day.
    public init(year: Int64, month: Int64, day: Int64) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `days` days after 1970-01-01 (before it when negative).
    public init(daysSince1970 days: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01: the year starts in March, so leap days end it
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this day, negative before it.
    public var daysSince1970: Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether the month exists and the day exists in it (no 31 April, 29 February only in leap years).
    public var isValid: Bool {
        (1...12).contains(month) && (1...Self.daysInMonth(year: year, month: month)).contains(day)
    }

    /// 0 for Sunday through 6 for Saturday.
    public var weekday: Int64 {
        (daysSince1970 + 4).floorDivided(by: 7).remainder  // 1970-01-01 was a Thursday
    }

    /// The same day of the month `months` months later (earlier when negative), clamped to the
    /// length of the month it lands in: January 31 plus one month is the last day of February.
    /// PostgreSQL adds an interval's months to a date this way.
    public func addingMonths(_ months: Int64) -> CivilDate {
        let (newYear, monthIndex) = (year * 12 + (month - 1) + months).floorDivided(by: 12)
        let newMonth = monthIndex + 1
        let newDay = min(day, Self.daysInMonth(year: newYear, month: newMonth))
        return CivilDate(year: newYear, month: newMonth, day: newDay)
    }

    public static func isLeapYear(_ year: Int64) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// 28 to 31 for months 1 through 12 (31 for any other number).
    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
