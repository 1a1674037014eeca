import CivilTime
import Testing

/// The shared timestamp reader: the fields, which spelling it saw, and where the zone starts; the
/// formats that narrow it (receipts, verifyReceipt answers, `--as-of`) are tested with their parsers.
@Suite struct CivilTimestampTests {
    @Test func readsEverySpellingAndSaysWhichItSaw() throws {
        let full = try #require(CivilTimestamp.read(Array("2024-02-23T17:27:16.125+01:00".utf8)))
        #expect(full.local == CivilDateTime(year: 2024, month: 2, day: 23, hour: 17, minute: 27, second: 16))
        #expect(full.separator == UInt8(ascii: "T") && full.hasSeconds && full.fractionSeparator == UInt8(ascii: "."))
        #expect(full.fractionDigits == 20..<23 && full.zoneStart == 23)

        let apple = try #require(CivilTimestamp.read(Array("2012-04-30 15:05:55 Etc/GMT".utf8)))
        #expect(apple.separator == UInt8(ascii: " ") && apple.fractionSeparator == nil && apple.zoneStart == 19)

        let minutes = try #require(CivilTimestamp.read(Array("2026-11-22t03:00Z".utf8)))
        #expect(!minutes.hasSeconds && minutes.local.hour == 3 && minutes.zoneStart == 16)

        let dateOnly = try #require(CivilTimestamp.read(Array("2026-11-22".utf8)))
        #expect(dateOnly.separator == nil && dateOnly.zoneStart == 10)
    }

    @Test(arguments: [
        "", "2024", "2024-2-23", "2024-02-23T", "2024-02-23T17", "2024-02-23T17:27:1", "2024-02-23T17:27:16.",
    ])
    func refusesTextWithoutADateAndTime(text: String) {
        #expect(CivilTimestamp.read(Array(text.utf8)) == nil)
    }

    @Test(
        arguments: [
            ("+01", 60 as Int64?), ("-0530", -330), ("+05:45", 345), ("+00:00", 0), ("+24", nil), ("+01:60", nil),
            ("+1", nil), ("+01:", nil), ("+01:0", nil), ("01:00", nil), ("+01:00 ", nil), ("Z", nil),
        ] as [(String, Int64?)])
    func numericOffsets(text: String, minutes: Int64?) {
        #expect(CivilTimestamp.numericOffsetMinutes(Array(text.utf8)[...]) == minutes)
    }
}
