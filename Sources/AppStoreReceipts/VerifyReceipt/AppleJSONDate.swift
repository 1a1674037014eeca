import CivilTime
import Foundation

/// Reads the date spellings found in verifyReceipt responses.
///
/// Apple's documentation says to process the `*_date_ms` form (milliseconds since 1970, as a
/// string), and most responses carry it. Some do not: the in_app `expires_date` of older
/// responses has no `_ms` companion, iOS 6 responses put milliseconds in `expires_date` and the
/// text in `expires_date_formatted`, and `receipt.expiration_date` can be milliseconds. So
/// every date field falls back from milliseconds to text, and text that is only digits is
/// taken as milliseconds.
enum AppleJSONDate {
    /// A date from a milliseconds value (`"1566378703000"` or `1566378703000`).
    static func fromMilliseconds(_ scalar: AppleJSONScalar) -> Date? {
        scalar.int64Value.map(fromMilliseconds)
    }

    static func fromMilliseconds(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
    }

    /// A date from a value that may be milliseconds or text.
    static func fromAnySpelling(_ scalar: AppleJSONScalar) -> Date? {
        switch scalar {
        case .number:
            return fromMilliseconds(scalar)
        case .string(let text):
            if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                return fromMilliseconds(scalar)
            }
            return parse(text)
        case .bool:
            return nil
        }
    }

    /// Parses `2019-08-21 09:11:43 Etc/GMT` (Apple's form; any IANA zone name after the space)
    /// and ISO 8601 (`2019-08-21T09:11:43Z`, `...43.120+02:00`, `...43+0200`, no zone = UTC).
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard let stamp = CivilTimestamp.read(bytes), stamp.separator != nil, stamp.hasSeconds,
            // Year 0 (1 BC) is in no answer.
            stamp.local.date.year >= 1, stamp.local.isValid
        else { return nil }
        let local = stamp.local.unixSeconds
        var fraction = 0.0
        var scale = 0.1
        for byte in bytes[stamp.fractionDigits] where stamp.fractionSeparator != nil {
            fraction += Double(byte - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        let zone = String(decoding: bytes[stamp.zoneStart...], as: UTF8.self)
        guard let offset = utcOffset(zone, localSeconds: local) else { return nil }
        return Date(timeIntervalSince1970: Double(local - Int64(offset)) + fraction)
    }

    /// Seconds east of UTC for the zone suffix; nil when it is not a zone.
    private static func utcOffset(_ suffix: String, localSeconds: Int64) -> Int? {
        let zone = suffix.trimmingCharacters(in: .whitespaces)
        switch zone {
        case "", "Z", "z", "Etc/GMT", "GMT", "UTC", "Etc/UTC", "UT":
            return 0
        default:
            break
        }
        if let minutes = CivilTimestamp.numericOffsetMinutes(Array(zone.utf8)[...]) { return Int(minutes) * 60 }
        if zone.hasPrefix("+") || zone.hasPrefix("-") { return nil }
        // A named zone such as `America/Los_Angeles` (the `_pst` forms). Its offset depends on
        // the instant, which depends on the offset: guess from local time, then correct once,
        // which is exact except within the repeated hour of a DST change.
        guard zone.contains("/"), let timeZone = TimeZone(identifier: zone) else { return nil }
        let guess = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localSeconds)))
        return timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localSeconds - Int64(guess))))
    }
}
