import CivilTime
import Foundation
import Testing

private func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text) ?? Date.distantPast
}

/// `timestamptz + interval` as PostgreSQL computes it in a UTC session: what `purchase_date +
/// products.duration` must give.
@Suite struct CalendarDurationTests {
    @Test(
        arguments: [
            (CalendarDuration(days: 30), "2024-01-15T10:00:00.000Z", "2024-02-14T10:00:00.000Z"),
            (CalendarDuration(months: 1), "2024-01-31T10:00:00.000Z", "2024-02-29T10:00:00.000Z"),
            (CalendarDuration(months: 1), "2023-01-31T10:00:00.000Z", "2023-02-28T10:00:00.000Z"),
            (CalendarDuration(months: 12), "2024-02-29T00:00:00.000Z", "2025-02-28T00:00:00.000Z"),
            (CalendarDuration(months: 1, days: 1), "2024-01-31T00:00:00.000Z", "2024-03-01T00:00:00.000Z"),
            (CalendarDuration(months: 13), "2024-12-15T23:59:59.999Z", "2026-01-15T23:59:59.999Z"),
            (CalendarDuration(months: -1), "2024-03-31T08:00:00.000Z", "2024-02-29T08:00:00.000Z"),
            (CalendarDuration(microseconds: 3_600_000_000), "2024-03-10T01:30:00.000Z", "2024-03-10T02:30:00.000Z"),
            (CalendarDuration(days: 1), "2024-01-15T10:00:00.123Z", "2024-01-16T10:00:00.123Z"),
            (CalendarDuration(days: 1), "1969-12-31T12:00:00.000Z", "1970-01-01T12:00:00.000Z"),
            (CalendarDuration(months: 1), "1969-12-31T23:59:59.500Z", "1970-01-31T23:59:59.500Z"),
            (CalendarDuration.seconds(-1), "1970-01-01T00:00:00.500Z", "1969-12-31T23:59:59.500Z"),
        ] as [(CalendarDuration, String, String)])
    func added(_ duration: CalendarDuration, _ start: String, _ end: String) {
        #expect(duration.added(to: utc(start)) == utc(end))
    }

    @Test func keepsMicroseconds() {
        let start: Int64 = 1_706_695_200_000_001  // 2024-01-31T10:00:00.000001Z
        let end = CalendarDuration(months: 1, microseconds: 1).added(toUnixMicroseconds: start)
        #expect(end == 1_709_200_800_000_002)  // 2024-02-29T10:00:00.000002Z
    }

    /// The ISO 8601 text PostgreSQL reads back exactly (the Postgres module binds intervals with it).
    @Test(
        arguments: [
            (CalendarDuration(months: 1), "P1M"), (CalendarDuration(days: 30), "P30D"), (.seconds(3600), "PT3600S"),
            (CalendarDuration(), "PT0S"), (CalendarDuration(microseconds: -1_500_000), "PT-1.5S"),
            (CalendarDuration(microseconds: -500_000), "PT-0.5S"), (CalendarDuration(microseconds: 1), "PT0.000001S"),
            (CalendarDuration(months: 14, days: -3, microseconds: 3_723_500_001), "P14M-3DT3723.500001S"),
        ] as [(CalendarDuration, String)])
    func description(duration: CalendarDuration, text: String) {
        #expect(duration.description == text)
    }
}
