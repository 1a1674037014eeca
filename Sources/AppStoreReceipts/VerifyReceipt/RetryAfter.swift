import CivilTime
import Foundation

/// The `Retry-After` header, as sent with 429 and 503: RFC 9110 §10.2.3's two forms (verifyReceipt's
/// front end), and the App Store Server API's Unix time in milliseconds.
///
/// No upper bound is applied here: the caller caps the wait (`VerifyReceiptClassifier.waitRule`).
/// A number too large to hold is read as the longest wait there is, never as garbage: a server
/// asking to wait for ages must not be retried at once by the caller's own backoff.
public enum RetryAfter {
    /// How long the server asked us to wait.
    ///
    /// - Parameters:
    ///   - header: the header value: delta-seconds (`120`) or an HTTP date in any of the three
    ///     forms RFC 9110 requires recipients to accept (`Sun, 06 Nov 1994 08:49:37 GMT`,
    ///     `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`).
    ///   - now: the current time, for HTTP dates.
    /// - Returns: the wait; `.zero` for a date already past; nil for anything unreadable
    ///   (negative numbers, other time zones, garbage), in which case the caller's own
    ///   backoff applies.
    public static func parse(_ header: String, now: Date) -> Duration? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard let first = value.utf8.first else { return nil }
        if first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") {
            return parseDeltaSeconds(value)
        }
        guard let date = parseHTTPDate(value) else { return nil }
        let interval = date.timeIntervalSince(now)
        guard interval > 0 else { return .zero }
        return .milliseconds(Int64((interval * 1_000).rounded(.up)))
    }

    /// How long until the instant the App Store Server API names in its 429's `Retry-After`: Unix
    /// time in milliseconds (`1700000060000`). `.zero` for an instant already past; nil for anything
    /// but digits.
    public static func parseUnixMilliseconds(_ header: String, now: Date) -> Duration? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        guard let instant = Int64(value) else { return longest }
        let nowMilliseconds = Int64((now.timeIntervalSince1970 * 1_000).rounded(.down))
        return instant > nowMilliseconds ? .milliseconds(instant - nowMilliseconds) : .zero
    }

    /// What a number too large for `Int64` means: longer than any cap.
    static let longest = Duration.seconds(Int64.max)

    /// `120` (and, leniently, `1.5`); nil when it does not fit.
    static func parseDeltaSeconds(_ value: String) -> Duration? {
        if let seconds = Int64(value) {
            return .seconds(seconds)
        }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return longest
        }
        guard
            value.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }),
            let seconds = Double(value), seconds.isFinite, seconds < 1e15
        else { return nil }
        return .milliseconds(Int64((seconds * 1_000).rounded(.up)))
    }

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// Reads the three HTTP date forms by their parts rather than their layout: a month name,
    /// a `HH:MM:SS` time, then the day and the year as the first and second remaining numbers
    /// (true of all three forms). The weekday is not checked; the zone must be GMT or absent.
    static func parseHTTPDate(_ value: String) -> Date? {
        let tokens = value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" })
        var month: Int?
        var time: (hour: Int, minute: Int, second: Int)?
        var numbers: [Substring] = []
        for (index, token) in tokens.enumerated() {
            let lowered = token.lowercased()
            if token.contains(":") {
                guard time == nil, let parsed = parseTime(token) else { return nil }
                time = parsed
            } else if token.allSatisfy(\.isASCIIDigit) {
                numbers.append(token)
            } else if let monthIndex = monthNames.firstIndex(of: lowered) {
                guard month == nil else { return nil }
                month = monthIndex + 1
            } else if ["gmt", "utc", "ut", "z"].contains(lowered) {
                guard index == tokens.count - 1 else { return nil }
            } else if index == 0, lowered.count >= 3, lowered.allSatisfy(\.isLetter) {
                continue  // weekday
            } else {
                return nil
            }
        }
        guard let month, let time, numbers.count == 2,
            numbers[0].count <= 2, let day = Int(numbers[0]),
            numbers[1].count == 2 || numbers[1].count == 4, var year = Int(numbers[1])
        else { return nil }
        if numbers[1].count == 2 {
            // RFC 850's two-digit years; a recent or near-future date is what a server means.
            year += year < 70 ? 2000 : 1900
        }
        let civil = CivilDateTime(
            year: Int64(year), month: Int64(month), day: Int64(day), hour: Int64(time.hour),
            minute: Int64(time.minute), second: Int64(time.second))
        // Year 0 (1 BC) is no date a server means.
        guard year >= 1, civil.isValid else { return nil }
        return Date(timeIntervalSince1970: Double(civil.unixSeconds))
    }

    private static func parseTime(_ token: Substring) -> (hour: Int, minute: Int, second: Int)? {
        let bytes = Array(token.utf8)
        guard bytes.count == 8, bytes[2] == UInt8(ascii: ":"), bytes[5] == UInt8(ascii: ":"),
            let hour = ASCIIDigits.number(bytes, at: 0, count: 2),
            let minute = ASCIIDigits.number(bytes, at: 3, count: 2),
            let second = ASCIIDigits.number(bytes, at: 6, count: 2)
        else { return nil }
        return (hour, minute, second)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
