import CivilTime
import Foundation
import Testing

/// `--as-of`, `--from` and `--to` as operators type them, for the job and the bench alike.
@Suite struct InstantTests {
    @Test(
        arguments: [
            ("2026-11-22", 1_795_305_600.0),
            ("2026-11-22T03:00:00Z", 1_795_316_400),
            ("2026-11-22T03:00Z", 1_795_316_400),
            ("2026-11-22t03:00:00z", 1_795_316_400),
            ("2026-11-22 03:00:00Z", 1_795_316_400),
            ("2026-11-22T04:00:00+01:00", 1_795_316_400),
            ("2026-11-22T04:00:00+01", 1_795_316_400),
            ("2026-11-22T03:00:00.250Z", 1_795_316_400.25),
        ] as [(String, Double)])
    func readsEachSpelling(text: String, seconds: Double) {
        #expect(Instant.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "", "yesterday", "2026-11-22T03:00:00", "2026-11-22T03:00:00+01:", "2026-02-30", "2026-11-22T25:00Z",
        "2026-11-22Z", "2026-11-22T03:00:00Z ",
    ])
    func refusesAnythingElse(text: String) {
        #expect(Instant.parse(text) == nil)
    }

    @Test func formatsWhatItReads() {
        let date = Date(timeIntervalSince1970: 1_795_316_400.25)
        #expect(Instant.format(date) == "2026-11-22T03:00:00.250Z")
        #expect(Instant.parse(Instant.format(date)) == date)
    }

    /// Logs, summaries and exports print the second an instant falls in, as Foundation's
    /// `ISO8601DateFormatter` prints it: the same text, without its formatters in memory.
    @Test(arguments: [
        1_795_316_400.0, 1_795_316_400.999, 1_795_316_399.001, 0, -0.5, -86_400.25, 253_402_300_799, 951_782_400,
    ])
    func formatsSecondsAsFoundationDoes(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(Instant.formatSeconds(date) == ISO8601DateFormatter().string(from: date))
    }
}
