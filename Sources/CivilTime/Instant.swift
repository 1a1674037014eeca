import Foundation

/// ISO 8601 instants as operators type them.
///
/// The one reader of `--as-of`, `--from` and `--to` for the job and the bench alike: the same spellings
/// accepted, the same refusal (`expected`).
public enum Instant {
    /// What an instant option expects, for the one-line error that refuses another value.
    public static let expected = "a date YYYY-MM-DD or an ISO 8601 instant such as 2026-11-22T03:00:00Z"

    /// Parses `YYYY-MM-DD` (00:00 UTC), `YYYY-MM-DDTHH:MM[:SS[.fff…]]` followed by `Z` or `±HH[:MM]`.
    /// A time without a zone is refused: a nightly job must not depend on the machine's time zone.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard let stamp = CivilTimestamp.read(bytes), stamp.local.date.isValid else { return nil }
        let days = stamp.local.date.daysSince1970
        guard stamp.separator != nil else {
            return stamp.zoneStart == bytes.count ? Date(timeIntervalSince1970: Double(days) * 86_400) : nil
        }
        guard stamp.local.isValid else { return nil }
        var seconds = Double(stamp.local.hour * 3600 + stamp.local.minute * 60 + stamp.local.second)
        var scale = 0.1
        for byte in bytes[stamp.fractionDigits] where stamp.fractionSeparator != nil {
            seconds += Double(byte - 0x30) * scale
            scale /= 10
        }
        let zone = bytes[stamp.zoneStart...]
        let offsetMinutes: Int64
        if zone.elementsEqual("Z".utf8) || zone.elementsEqual("z".utf8) {
            offsetMinutes = 0
        } else if let minutes = CivilTimestamp.numericOffsetMinutes(zone) {
            offsetMinutes = minutes
        } else {
            return nil
        }
        return Date(timeIntervalSince1970: Double(days) * 86_400 + seconds - Double(offsetMinutes * 60))
    }

    /// `2026-11-22T03:00:00Z`, the second the instant falls in: how logs, summaries and exports print
    /// instants. By hand, as `format`: `ISO8601DateFormatter` would load ICU's formatters, several
    /// megabytes of a night's memory for a timestamp per log line.
    public static func formatSeconds(_ date: Date) -> String {
        CivilDateTime(unixMilliseconds: Int64(date.timeIntervalSince1970.rounded(.down)) * 1000).iso8601
    }

    /// `2026-11-22T03:00:00Z`, with `.SSS` only when the instant, rounded to the millisecond, has them.
    public static func format(_ date: Date) -> String {
        CivilDateTime(unixMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded())).iso8601
    }
}
