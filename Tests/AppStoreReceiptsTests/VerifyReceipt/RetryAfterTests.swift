import AppStoreReceipts
import Foundation
import Testing

@Suite struct RetryAfterTests {
    /// Tue, 14 Nov 2023 22:13:20 GMT.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(
        "delta-seconds is the wait",
        arguments: [
            ("120", Duration.seconds(120)),
            ("0", .zero),
            ("  5 ", .seconds(5)),
            ("1.5", .milliseconds(1_500)),
            ("86400", .seconds(86_400)),
        ])
    func deltaSeconds(_ header: String, _ expected: Duration) {
        #expect(RetryAfter.parse(header, now: Self.now) == expected)
    }

    @Test(
        "an HTTP date in any of RFC 9110's three forms is the time until then",
        arguments: [
            "Tue, 14 Nov 2023 22:14:20 GMT",
            "Tuesday, 14-Nov-23 22:14:20 GMT",
            "Tue Nov 14 22:14:20 2023",
            "tue, 14 nov 2023 22:14:20 gmt",
        ])
    func httpDate(_ header: String) {
        #expect(RetryAfter.parse(header, now: Self.now) == .seconds(60))
    }

    @Test("asctime pads single-digit days with a space")
    func asctimeSingleDigitDay() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.parse("Sun Nov  6 08:49:47 1994", now: now) == .seconds(10))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
    }

    @Test(
        "a date already past means retry now, not a negative wait",
        arguments: [
            "Tue, 14 Nov 2023 22:13:19 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Tue, 14 Nov 2023 22:13:20 GMT",
        ])
    func pastDate(_ header: String) {
        #expect(RetryAfter.parse(header, now: Self.now) == .zero)
    }

    @Test("sub-second waits round up so the client never retries early")
    func fractionalWait() {
        let now = Date(timeIntervalSince1970: 1_700_000_000.25)
        #expect(RetryAfter.parse("Tue, 14 Nov 2023 22:13:21 GMT", now: now) == .milliseconds(750))
    }

    @Test(
        "garbage falls back to the client's own backoff",
        arguments: [
            "", "   ", "soon", "-5", "+5", "5s", "0x10", "1e3", "1.5.2",
            "Tue, 14 Nov 2023 22:13:50 PST",
            "Tue, 14 Nov 2023 22:13:50 +0100",
            "Fri, 31 Feb 2023 22:13:50 GMT",
            "Tue, 14 Foo 2023 22:13:50 GMT",
            "Tue, 14 Nov 2023 25:13:50 GMT",
            "Tue, 14 Nov 2023 22:13 GMT",
            "Tue, 14 Nov 2023 GMT",
            "2023-11-14T22:13:50Z",
        ])
    func garbage(_ header: String) {
        #expect(RetryAfter.parse(header, now: Self.now) == nil)
    }

    @Test(
        "a wait too long to hold is the longest wait, never garbage (garbage would retry at once)",
        arguments: ["99999999999999999999", "123456789012345678901234567890"])
    func hugeDeltaSeconds(_ header: String) {
        #expect(RetryAfter.parse(header, now: Self.now)! > .seconds(1_000_000_000))
    }

    @Test(
        "the App Store Server API's Unix milliseconds are the time until then",
        arguments: [
            ("1700000060000", Duration.seconds(60)),
            (" 1700000000500 ", .milliseconds(500)),
            ("1700000000000", .zero),
            ("1699999999000", .zero),
            ("0", .zero),
        ])
    func unixMilliseconds(_ header: String, _ expected: Duration) {
        #expect(RetryAfter.parseUnixMilliseconds(header, now: Self.now) == expected)
    }

    @Test("Unix milliseconds too large to hold are the longest wait")
    func hugeUnixMilliseconds() {
        #expect(RetryAfter.parseUnixMilliseconds("99999999999999999999999", now: Self.now)! > .seconds(1_000_000_000))
    }

    @Test(
        "Unix milliseconds are digits only",
        arguments: ["", "  ", "-1700000060000", "1700000060000.5", "Tue, 14 Nov 2023 22:14:20 GMT", "1.7e12"])
    func unixMillisecondsGarbage(_ header: String) {
        #expect(RetryAfter.parseUnixMilliseconds(header, now: Self.now) == nil)
    }
}
