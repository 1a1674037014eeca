import Foundation
import Testing

@testable import AppStoreReceipts

@Suite struct LocalReceiptTimestampTests {
    @Test(
        arguments: [
            ("2024-02-23T17:27:16Z", 1_708_709_236_000),
            ("2024-02-23T17:27:16.5Z", 1_708_709_236_500),
            ("2024-02-23T17:27:16.123456789Z", 1_708_709_236_123),  // truncated to milliseconds
            ("2024-02-23T18:27:16+01:00", 1_708_709_236_000),
            ("2024-02-23T12:27:16-0500", 1_708_709_236_000),
            ("2024-02-23T19:27:16+02", 1_708_709_236_000),
            ("2024-02-23 17:27:16 Etc/GMT", 1_708_709_236_000),
            ("2024-02-23 17:27:16 GMT", 1_708_709_236_000),
            ("2024-02-23 17:27:16 UTC", 1_708_709_236_000),
            ("2024-02-23T17:27:16", 1_708_709_236_000),  // no zone: UTC
            ("2024-02-23 17:27:16", 1_708_709_236_000),
            ("2000-02-29T00:00:00Z", 951_782_400_000),
            ("1969-12-31T23:59:59Z", -1000),
            ("4001-01-01T00:00:00Z", 64_092_211_200_000),
            ("2016-12-31T23:59:60Z", 1_483_228_800_000),  // a leap second lands on the next second
        ] as [(String, Int64)])
    func parses(text: String, milliseconds: Int64) throws {
        let date = try #require(LocalReceiptTimestamp.parse(Array(text.utf8)))
        #expect(LocalReceiptTimestamp.milliseconds(date) == milliseconds)
    }

    @Test(arguments: [
        "", "2024", "2024-02-23", "2024-02-23T17:27Z", "2024-2-23T17:27:16Z", "2024-02-23T17:27:16ZZ",
        "2024-02-23T17:27:16.Z", "2024-02-23T17:27:16.1234567890Z", "2023-02-29T00:00:00Z",
        "2024-00-10T00:00:00Z", "2024-04-31T00:00:00Z", "2024-02-23T24:00:00Z", "2024-02-23T17:60:00Z",
        "2024-02-23T17:27:61Z", "2024-02-23T17:27:16+25:00", "2024-02-23T17:27:16 PST",
        "2024-02-23T17:27:16America/Los_Angeles", "２０２４-02-23T17:27:16Z", "-024-02-23T17:27:16Z",
        String(repeating: "2024-02-23T17:27:16Z", count: 10),
    ])
    func rejects(text: String) {
        #expect(LocalReceiptTimestamp.parse(Array(text.utf8)) == nil)
    }

    @Test(
        arguments: [
            ("1335798355868", 1_335_798_355_868 as Int64?),
            ("0", 0),
            ("253402300799999", 253_402_300_799_999),
            ("253402300800000", nil),  // year 10000
            ("-1", -1), ("-62135596800000", -62_135_596_800_000), ("-62135596800001", nil),
            ("", nil), ("-", nil), ("+1", nil), ("--1", nil), ("1e3", nil), (" 1", nil), ("99999999999999999", nil),
        ] as [(String, Int64?)])
    func parsesMilliseconds(text: String, milliseconds: Int64?) {
        #expect(LocalReceiptTimestamp.parseMilliseconds(text).map(LocalReceiptTimestamp.milliseconds) == milliseconds)
    }

    @Test func formatsTransactionReceiptDates() {
        let date = Date(timeIntervalSince1970: 1_335_798_355.868)
        #expect(LocalReceiptTimestamp.formatTransactionReceipt(date) == "2012-04-30 15:05:55 Etc/GMT")
        #expect(LocalReceiptTimestamp.format(date) == "2012-04-30T15:05:55.868Z")
    }

    @Test func clampsDatesOutsideFourDigitYears() {
        #expect(LocalReceiptTimestamp.format(.distantPast) == "0001-01-01T00:00:00Z")
        #expect(LocalReceiptTimestamp.format(Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")
        #expect(LocalReceiptTimestamp.format(Date(timeIntervalSince1970: .nan)) == "9999-12-31T23:59:59.999Z")
    }

    @Test func everyDayOfFourHundredYearsRoundTrips() throws {
        // The Gregorian cycle: leap years, centuries and the 400-year rule.
        var failures: [String] = []
        for day in stride(from: Int64(-73_048), to: 73_049, by: 1) {  // 1770 to 2170
            let date = Date(timeIntervalSince1970: Double(day * 86_400 + 43_261))
            let text = LocalReceiptTimestamp.format(date)
            if LocalReceiptTimestamp.parse(Array(text.utf8)) != date { failures.append(text) }
        }
        #expect(failures.isEmpty)
        // And the calendar agrees with Foundation's on the way.
        #expect(
            LocalReceiptTimestamp.format(LocalReceiptSamples.date("2100-03-01T00:00:00Z")) == "2100-03-01T00:00:00Z")
    }
}
