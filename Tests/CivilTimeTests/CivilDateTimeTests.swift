import CivilTime
import Testing

@Suite struct CivilDateTimeTests {
    @Test(
        arguments: [
            (0, CivilDateTime(year: 1970, month: 1, day: 1)),
            (-1, CivilDateTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59)),
            (86_399, CivilDateTime(year: 1970, month: 1, day: 1, hour: 23, minute: 59, second: 59)),
            (951_782_400, CivilDateTime(year: 2000, month: 2, day: 29)),
            (1_335_798_355, CivilDateTime(year: 2012, month: 4, day: 30, hour: 15, minute: 5, second: 55)),
            (253_402_300_799, CivilDateTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)),
            (-62_135_596_800, CivilDateTime(year: 1, month: 1, day: 1)),
        ] as [(Int64, CivilDateTime)])
    func unixSeconds(seconds: Int64, civil: CivilDateTime) {
        #expect(CivilDateTime(unixSeconds: seconds) == civil)
        #expect(civil.unixSeconds == seconds)
    }

    /// Fractions of a second before 1970 belong to the second before, as they do after it.
    @Test func subsecondsRoundTripAcrossTheEpoch() {
        let lastMicrosecond = CivilDateTime(
            year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59, microsecond: 999_999)
        #expect(CivilDateTime(unixMicroseconds: -1) == lastMicrosecond)
        #expect(CivilDateTime(unixMilliseconds: -1).microsecond == 999_000)
        #expect(CivilDateTime(unixMilliseconds: -1).unixSeconds == -1)
        for micros: Int64 in [-86_400_000_001, -1_500_000, -1, 0, 1, 999_999, 1_709_276_696_123_456] {
            #expect(CivilDateTime(unixMicroseconds: micros).unixMicroseconds == micros)
        }
        for millis: Int64 in [-1001, -1, 0, 1, 1_335_798_355_868] {
            let civil = CivilDateTime(unixMilliseconds: millis)
            #expect(civil.unixSeconds * 1000 + civil.millisecond == millis)
        }
    }

    @Test func aLeapSecondIsTheFirstSecondOfTheNextMinute() {
        let leap = CivilDateTime(year: 2016, month: 12, day: 31, hour: 23, minute: 59, second: 60)
        #expect(leap.isValid)
        #expect(leap.unixSeconds == CivilDateTime(year: 2017, month: 1, day: 1).unixSeconds)
    }

    @Test(arguments: [
        (CivilDateTime(year: 2024, month: 2, day: 29, hour: 23, minute: 59, second: 59, microsecond: 999_999), true),
        (CivilDateTime(year: 2023, month: 2, day: 29), false),
        (CivilDateTime(year: 2024, month: 2, day: 23, hour: 24), false),
        (CivilDateTime(year: 2024, month: 2, day: 23, minute: 60), false),
        (CivilDateTime(year: 2024, month: 2, day: 23, second: 61), false),
        (CivilDateTime(year: 2024, month: 2, day: 23, hour: -1), false),
        (CivilDateTime(year: 2024, month: 2, day: 23, microsecond: 1_000_000), false),
    ])
    func validity(civil: CivilDateTime, valid: Bool) {
        #expect(civil.isValid == valid)
    }

    @Test(
        arguments: [
            (1_335_798_355_868, "2012-04-30 15:05:55", "2012-04-30T15:05:55.868Z"),
            (1_335_798_355_000, "2012-04-30 15:05:55", "2012-04-30T15:05:55Z"),
            (1_335_798_355_005, "2012-04-30 15:05:55", "2012-04-30T15:05:55.005Z"),
            (-1, "1969-12-31 23:59:59", "1969-12-31T23:59:59.999Z"),
            (-62_135_596_800_000, "0001-01-01 00:00:00", "0001-01-01T00:00:00Z"),
            (253_402_300_799_999, "9999-12-31 23:59:59", "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01 00:00:00", "10000-01-01T00:00:00Z"),
            (-62_167_219_200_001, "-0001-12-31 23:59:59", "-0001-12-31T23:59:59.999Z"),
        ] as [(Int64, String, String)])
    func text(milliseconds: Int64, text: String, iso8601: String) {
        let civil = CivilDateTime(unixMilliseconds: milliseconds)
        #expect(civil.text(separator: " ") == text)
        #expect(civil.iso8601 == iso8601)
        var bytes = Array("at ".utf8)
        civil.appendISO8601(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "at " + iso8601)
    }

    @Test func iso8601DropsMicroseconds() {
        #expect(CivilDateTime(unixMicroseconds: 999).iso8601 == "1970-01-01T00:00:00Z")
        #expect(CivilDateTime(unixMicroseconds: 1_999).iso8601 == "1970-01-01T00:00:00.001Z")
    }
}
