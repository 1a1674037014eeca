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
        let bytes = Array(text)
        guard let stamp = CivilTimestamp.read(bytes),
            stamp.separator == UInt8(ascii: "T") || stamp.separator == UInt8(ascii: " "), stamp.hasSeconds,
            stamp.fractionSeparator == nil || stamp.fractionSeparator == UInt8(ascii: "."),
            stamp.fractionDigits.count <= 9
        else { return nil }
        var milliseconds: Int64 = 0
        if stamp.fractionSeparator != nil {
            for byte in bytes[stamp.fractionDigits].prefix(3) { milliseconds = milliseconds * 10 + Int64(byte - 0x30) }
            for _ in min(stamp.fractionDigits.count, 3)..<3 { milliseconds *= 10 }
        }
        // Second 60 is a leap second, as RFC 3339 allows.
        guard stamp.local.isValid, let offsetMinutes = zoneOffsetMinutes(bytes[stamp.zoneStart...]) else { return nil }
        return date(milliseconds: (stamp.local.unixSeconds - offsetMinutes * 60) * 1000 + milliseconds)
    }

    /// The zone suffix as minutes east of UTC: none, `Z`, a spelled UTC zone, or `±hh[[:]mm]`.
    private static func zoneOffsetMinutes(_ zone: ArraySlice<UInt8>) -> Int64? {
        if zone.isEmpty || zone.elementsEqual("Z".utf8) { return 0 }
        if [" Etc/GMT", " Etc/UTC", " GMT", " UTC"].contains(where: { zone.elementsEqual($0.utf8) }) { return 0 }
        return CivilTimestamp.numericOffsetMinutes(zone)
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
}
