import CivilTime
import Foundation

/// Receipt dates to and from text, by hand: the formats are narrow, `ISO8601DateFormatter` is
/// slow and not `Sendable`, and a hand-written parser cannot be talked into a surprise.
///
/// Dates are held to the millisecond, the finest precision any receipt carries (`*-date-ms`).
enum LocalReceiptTimestamp {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    static let earliestMilliseconds: Int64 = -62_135_596_800_000
    static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// Parses the dates receipts carry:
    /// `2024-02-23T17:27:16Z` (RFC 3339, app receipts), optionally with a fraction of a second
    /// or a numeric offset (`+01:00`, `+0100`, `+01`), `2012-04-30 15:05:55 Etc/GMT` (iOS 6),
    /// and those without a zone, read as UTC. Returns nil for anything else.
    static func parse(_ text: some Collection<UInt8>) -> Date? {
        guard text.count <= 64 else { return nil }  // longer than any date format; never copied
        var scanner = Scanner(bytes: Array(text))
        guard let year = scanner.digits(4), scanner.skip(UInt8(ascii: "-")),
            let month = scanner.digits(2), scanner.skip(UInt8(ascii: "-")),
            let day = scanner.digits(2),
            scanner.skip(UInt8(ascii: "T")) || scanner.skip(UInt8(ascii: " ")),
            let hour = scanner.digits(2), scanner.skip(UInt8(ascii: ":")),
            let minute = scanner.digits(2), scanner.skip(UInt8(ascii: ":")),
            let second = scanner.digits(2)
        else { return nil }
        var milliseconds: Int64 = 0
        if scanner.skip(UInt8(ascii: ".")) {
            var count = 0
            while let digit = scanner.digit() {
                count += 1
                guard count <= 9 else { return nil }
                if count <= 3 { milliseconds = milliseconds * 10 + digit }
            }
            guard count > 0 else { return nil }
            for _ in min(count, 3)..<3 { milliseconds *= 10 }
        }
        // Second 60 is a leap second, as RFC 3339 allows.
        let local = CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard local.isValid, let offsetMinutes = scanner.zoneOffsetMinutes(), scanner.isAtEnd else { return nil }
        return date(milliseconds: (local.unixSeconds - offsetMinutes * 60) * 1000 + milliseconds)
    }

    /// Parses a decimal count of milliseconds since 1970 (iOS 6 `*-date-ms`, `expires-date`).
    /// A leading minus is accepted so that dates before 1970 survive the encoder's round trip.
    static func parseMilliseconds(_ text: String) -> Date? {
        let utf8 = text.utf8
        let digits = utf8.first == UInt8(ascii: "-") ? utf8.dropFirst() : utf8[...]
        guard !digits.isEmpty, digits.count <= 16, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int64(text)
        else { return nil }
        return date(milliseconds: value)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.SSS` before the `Z` only when there are milliseconds.
    static func format(_ date: Date) -> String {
        CivilDateTime(unixMilliseconds: milliseconds(date)).iso8601
    }

    /// `YYYY-MM-DD HH:MM:SS Etc/GMT`, the text form of iOS 6 receipts.
    static func formatTransactionReceipt(_ date: Date) -> String {
        CivilDateTime(unixMilliseconds: milliseconds(date)).text(separator: " ") + " Etc/GMT"
    }

    /// Milliseconds since 1970, clamped to years 1 through 9999.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value < 0 ? earliestMilliseconds : latestMilliseconds }
        if value <= Double(earliestMilliseconds) { return earliestMilliseconds }
        if value >= Double(latestMilliseconds) { return latestMilliseconds }
        return Int64(value)
    }

    private static func date(milliseconds: Int64) -> Date? {
        guard (earliestMilliseconds...latestMilliseconds).contains(milliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func skip(_ text: String) -> Bool {
            let literal = Array(text.utf8)
            guard bytes.count - position >= literal.count,
                bytes[position..<position + literal.count].elementsEqual(literal)
            else { return false }
            position += literal.count
            return true
        }

        mutating func digit() -> Int64? {
            guard position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 else { return nil }
            position += 1
            return Int64(bytes[position - 1] - 0x30)
        }

        mutating func digits(_ count: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        /// The zone suffix as minutes east of UTC: none, `Z`, `±hh[:mm]`, or a spelled UTC zone.
        mutating func zoneOffsetMinutes() -> Int64? {
            if isAtEnd || skip(UInt8(ascii: "Z")) { return 0 }
            for name in [" Etc/GMT", " Etc/UTC", " GMT", " UTC"] where skip(name) {
                return 0
            }
            let sign: Int64
            if skip(UInt8(ascii: "+")) {
                sign = 1
            } else if skip(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let hours = digits(2), hours < 24 else { return nil }
            var minutes: Int64 = 0
            if !isAtEnd {
                _ = skip(UInt8(ascii: ":"))
                guard let value = digits(2), value < 60 else { return nil }
                minutes = value
            }
            return sign * (hours * 60 + minutes)
        }
    }
}
