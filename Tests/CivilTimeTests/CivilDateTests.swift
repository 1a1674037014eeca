import CivilTime
import Foundation
import Testing

@Suite struct CivilDateTests {
    @Test(
        arguments: [
            (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017),
            (1900, 3, 1, -25_508), (1600, 3, 1, -135_080), (1, 1, 1, -719_162), (0, 3, 1, -719_468),
            (0, 1, 1, -719_528), (-1, 12, 31, -719_529), (9999, 12, 31, 2_932_896),
        ] as [(Int64, Int64, Int64, Int64)])
    func daysSince1970(year: Int64, month: Int64, day: Int64, days: Int64) {
        let date = CivilDate(year: year, month: month, day: day)
        #expect(date.daysSince1970 == days)
        #expect(CivilDate(daysSince1970: days) == date)
    }

    /// Seven 400-year cycles and a leap year, from 401 BC to AD 2400: each day count is the day
    /// after the one before it, by the calendar's own rules, and converts back to its count.
    @Test func everyDayFollowsTheOneBeforeIt() {
        var failures: [String] = []
        let first = CivilDate(year: -400, month: 1, day: 1).daysSince1970
        let last = CivilDate(year: 2400, month: 12, day: 31).daysSince1970
        #expect(last - first + 1 == 146_097 * 7 + 366)
        var previous = CivilDate(daysSince1970: first - 1)
        for days in first...last where failures.count < 10 {
            let date = CivilDate(daysSince1970: days)
            if date != Self.dayAfter(previous) || date.daysSince1970 != days || !date.isValid {
                failures.append("\(days): \(date)")
            }
            previous = date
        }
        #expect(failures.isEmpty)
    }

    private static func dayAfter(_ date: CivilDate) -> CivilDate {
        if date.day < CivilDate.daysInMonth(year: date.year, month: date.month) {
            return CivilDate(year: date.year, month: date.month, day: date.day + 1)
        }
        if date.month < 12 { return CivilDate(year: date.year, month: date.month + 1, day: 1) }
        return CivilDate(year: date.year + 1, month: 1, day: 1)
    }

    /// Foundation's Gregorian calendar as a second opinion, from 1600 on (before 1582 it switches
    /// to the Julian calendar; the job's calendar stays Gregorian, as PostgreSQL's does).
    @Test func agreesWithFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        var disagreements: [String] = []
        let first = CivilDate(year: 1600, month: 1, day: 1).daysSince1970
        for days in stride(from: first, through: 157_000, by: 97) where disagreements.count < 10 {
            let instant = Date(timeIntervalSince1970: Double(days) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: instant)
            let date = CivilDate(daysSince1970: days)
            let expected = [parts.year, parts.month, parts.day, parts.weekday.map { $0 - 1 }].map { Int64($0 ?? -1) }
            if [date.year, date.month, date.day, date.weekday] != expected {  // Foundation counts Sunday as 1
                disagreements.append("\(days): \(date), weekday \(date.weekday); Foundation: \(expected)")
            }
        }
        #expect(disagreements.isEmpty)
    }

    @Test(
        arguments: [
            (2024, 2, 29, true), (2023, 2, 29, false), (2000, 2, 29, true), (1900, 2, 29, false), (0, 2, 29, true),
            (-4, 2, 29, true), (2024, 4, 30, true), (2024, 4, 31, false), (2024, 12, 31, true), (2024, 13, 1, false),
            (2024, 0, 10, false), (2024, 1, 0, false), (2024, 1, 32, false),
        ] as [(Int64, Int64, Int64, Bool)])
    func validity(year: Int64, month: Int64, day: Int64, valid: Bool) {
        #expect(CivilDate(year: year, month: month, day: day).isValid == valid)
    }

    @Test(
        arguments: [
            (1970, 1, 1, 4), (1969, 12, 28, 0), (2024, 3, 10, 0), (2000, 1, 1, 6), (1600, 1, 1, 6), (1, 1, 1, 1),
        ] as [(Int64, Int64, Int64, Int64)])
    func weekday(year: Int64, month: Int64, day: Int64, weekday: Int64) {
        #expect(CivilDate(year: year, month: month, day: day).weekday == weekday)
    }

    /// The day of the month is kept when the month has it and clamped to the month's end otherwise.
    @Test(
        arguments: [
            ((2024, 1, 31), 1, (2024, 2, 29)), ((2023, 1, 31), 1, (2023, 2, 28)), ((2024, 3, 31), -1, (2024, 2, 29)),
            ((2024, 2, 29), 12, (2025, 2, 28)), ((2024, 12, 15), 1, (2025, 1, 15)), ((2024, 1, 15), -1, (2023, 12, 15)),
            ((2024, 5, 31), 13, (2025, 6, 30)), ((2024, 8, 31), -26, (2022, 6, 30)), ((0, 1, 31), -1, (-1, 12, 31)),
            ((2024, 1, 31), 0, (2024, 1, 31)),
        ] as [((Int64, Int64, Int64), Int64, (Int64, Int64, Int64))])
    func addingMonths(start: (Int64, Int64, Int64), months: Int64, end: (Int64, Int64, Int64)) {
        let date = CivilDate(year: start.0, month: start.1, day: start.2).addingMonths(months)
        #expect(date == CivilDate(year: end.0, month: end.1, day: end.2))
    }
}
