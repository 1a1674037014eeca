import CivilTime
import Foundation
import Postgres
import Testing

/// The text formats this wrapper reads and writes, without a server.
@Suite struct PostgresTextFormatTests {
    @Test(arguments: [
        ("2024-03-01 12:34:56.123456+05:30", Int64(1_709_276_696_123_456)),
        ("2024-03-01 12:34:56+00", Int64(1_709_296_496_000_000)),
        ("1850-01-01 00:19:32+00:19:32", Int64(-3_786_825_600_000_000)),
        ("1969-12-31 23:59:59.5-00", Int64(-500_000)),
        ("2000-02-29 10:00:00.1-03:30", Int64(951_831_000_100_000)),
    ])
    func parsesISOOutputWithAnyOffset(text: String, micros: Int64) throws {
        #expect(try PostgresTimestamp.parse(text).unixMicroseconds == micros)
    }

    @Test func rejectsWhatItCannotRepresent() {
        for text in ["infinity", "-infinity", "2024-03-01 12:34:56 BC", "2024-03-01", "garbage"] {
            #expect(throws: PostgresError.self) { try PostgresTimestamp.parse(text) }
        }
    }

    @Test func formatsInUTCWithMicroseconds() {
        let date = Date(unixMicroseconds: 1_709_276_696_000_007)
        #expect(PostgresTimestamp.format(date) == "2024-03-01 07:04:56.000007+00")
        // Both sides of the four-digit fast path, and the instants around midnight and epoch.
        for (micros, text) in [
            (Int64(-62_135_596_800_000_000), "0001-01-01 00:00:00.000000+00"),
            (-1, "1969-12-31 23:59:59.999999+00"), (0, "1970-01-01 00:00:00.000000+00"),
            (253_402_300_799_000_000, "9999-12-31 23:59:59.000000+00"),
            (253_402_300_800_000_000, "10000-01-01 00:00:00.000000+00"),
        ] {
            #expect(PostgresTimestamp.format(Date(unixMicroseconds: micros)) == text)
            #expect(try! PostgresTimestamp.parse(text).unixMicroseconds == micros)
        }
    }

    @Test(arguments: [
        ("P1Y2M3DT4H5M6.789S", CalendarDuration(months: 14, days: 3, microseconds: 14_706_789_000)),
        ("PT0S", CalendarDuration()),
        ("P-1Y-2M", CalendarDuration(months: -14)),
        ("PT-4H-5M-6.5S", CalendarDuration(microseconds: -14_706_500_000)),
        ("P2W", CalendarDuration(days: 14)),
    ])
    func parsesISOIntervals(text: String, expected: CalendarDuration) throws {
        #expect(try CalendarDuration(iso8601: text) == expected)
    }

    @Test func intervalDescriptionReadsBack() throws {
        let intervals = [
            CalendarDuration(months: 1, days: -2, microseconds: -1_500_000), .seconds(86_400), CalendarDuration(),
        ]
        for interval in intervals {
            #expect(try CalendarDuration(iso8601: interval.description) == interval)
        }
    }

    @Test func advisoryKeysAreStableAcrossProcesses() {
        // FNV-1a 64 of the name: the same key in every process and release (Swift's hashValue is not).
        #expect(AdvisoryLockKey(name: "").value == Int64(bitPattern: 0xcbf2_9ce4_8422_2325))
        #expect(AdvisoryLockKey(name: "a").value == Int64(bitPattern: 0xaf63_dc4c_8601_ec8c))
        #expect(
            AdvisoryLockKey(name: "receipt-recon:nightly:0/1") != AdvisoryLockKey(name: "receipt-recon:nightly:1/2"))
    }
}
