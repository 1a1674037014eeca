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
        guard bytes.count >= 19,
            let year = ASCIIDigits.number(bytes, at: 0, count: 4), bytes[4] == UInt8(ascii: "-"),
            let month = ASCIIDigits.number(bytes, at: 5, count: 2), bytes[7] == UInt8(ascii: "-"),
            let day = ASCIIDigits.number(bytes, at: 8, count: 2),
            bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let hour = ASCIIDigits.number(bytes, at: 11, count: 2), bytes[13] == UInt8(ascii: ":"),
            let minute = ASCIIDigits.number(bytes, at: 14, count: 2), bytes[16] == UInt8(ascii: ":"),
            let second = ASCIIDigits.number(bytes, at: 17, count: 2)
        else { return nil }
        let civil = CivilDateTime(
            year: Int64(year), month: Int64(month), day: Int64(day), hour: Int64(hour), minute: Int64(minute),
            second: Int64(second))
        // Year 0 (1 BC) is in no answer.
        guard year >= 1, civil.isValid else { return nil }
        let local = civil.unixSeconds

        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        let zone = String(decoding: bytes[index...], as: UTF8.self)
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
        let bytes = Array(zone.utf8)
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            // +HH, +HHMM, +HH:MM
            guard let hours = ASCIIDigits.number(bytes, at: 1, count: 2), hours <= 23 else { return nil }
            var minutes = 0
            switch bytes.count {
            case 3: break
            case 5: minutes = ASCIIDigits.number(bytes, at: 3, count: 2) ?? 99
            case 6 where bytes[3] == UInt8(ascii: ":"): minutes = ASCIIDigits.number(bytes, at: 4, count: 2) ?? 99
            default: return nil
            }
            guard minutes <= 59 else { return nil }
            let magnitude = hours * 3_600 + minutes * 60
            return sign == UInt8(ascii: "-") ? -magnitude : magnitude
        }
        // A named zone such as `America/Los_Angeles` (the `_pst` forms). Its offset depends on
        // the instant, which depends on the offset: guess from local time, then correct once,
        // which is exact except within the repeated hour of a DST change.
        guard zone.contains("/"), let timeZone = TimeZone(identifier: zone) else { return nil }
        let guess = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localSeconds)))
        return timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localSeconds - Int64(guess))))
    }
}
