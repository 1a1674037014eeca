import CivilTime
import CommandLineOptions
import Foundation
import Reconciliation

/// The job's own value parsers beside the generic ones: ages and instants (civil time) and shards.
extension ValueParsers {
    /// An age such as `90m`, `20h`, `7d`, `1d12h` or `0`, in seconds.
    public func age(_ option: String, _ text: String) throws(OptionError) -> Int {
        guard let seconds = Self.parseAge(text) else {
            throw fail(option, "an age such as 90m, 20h, 7d or 0 (units s, m, h, d)", text)
        }
        return seconds
    }

    static func parseAge(_ text: String) -> Int? {
        if text == "0" { return 0 }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var total = 0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if let unit = units[character], let number = Int(digits), digits.count <= 9 {
                total += number * unit
                digits = ""
            } else {
                return nil
            }
        }
        return digits.isEmpty && !text.isEmpty ? total : nil
    }

    /// `YYYY-MM-DD` (midnight UTC) or an ISO 8601 instant with `Z` or an offset.
    public func instant(_ option: String, _ text: String) throws(OptionError) -> Date {
        guard let date = Instant.parse(text) else {
            throw fail(option, "a date YYYY-MM-DD or an ISO 8601 instant such as 2026-11-22T03:00:00Z", text)
        }
        return date
    }

    /// `I/N` with 0 ≤ I < N.
    public func shard(_ option: String, _ text: String) throws(OptionError) -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
            count >= 1, count <= 1024, index >= 0, index < count
        else { throw fail(option, "I/N with 0 <= I < N <= 1024, e.g. 0/4", text) }
        return (index, count)
    }
}

/// ISO 8601 instants as operators type them.
public enum Instant {
    /// Parses `YYYY-MM-DD` (00:00 UTC), `YYYY-MM-DDTHH:MM[:SS[.fff…]]` followed by `Z` or `±HH[:MM]`.
    /// A time without a zone is refused: a nightly job must not depend on the machine's time zone.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip(0x2D), let month = number(2), skip(0x2D), let day = number(2) else {
            return nil
        }
        let date = CivilDate(year: Int64(year), month: Int64(month), day: Int64(day))
        guard date.isValid else { return nil }
        let days = date.daysSince1970
        if index == bytes.count { return Date(timeIntervalSince1970: Double(days) * 86_400) }
        guard skip(0x54) || skip(0x74) || skip(0x20), let hour = number(2), skip(0x3A), let minute = number(2) else {
            return nil
        }
        let hasSecond = skip(0x3A)
        var second = 0
        if hasSecond {
            guard let value = number(2) else { return nil }
            second = value
        }
        guard CivilDateTime(date: date, hour: Int64(hour), minute: Int64(minute), second: Int64(second)).isValid else {
            return nil
        }
        var seconds = Double(hour * 3600 + minute * 60)
        if hasSecond {
            seconds += Double(second)
            if skip(0x2E) || skip(0x2C) {
                var scale = 0.1
                var digits = 0
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    seconds += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                    digits += 1
                }
                guard digits > 0 else { return nil }
            }
        }
        var offset = 0
        if skip(0x5A) || skip(0x7A) {
            offset = 0
        } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            let sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let offsetHours = number(2), offsetHours < 24 else { return nil }
            _ = skip(0x3A)
            let offsetMinutes = index < bytes.count ? number(2) : 0
            guard let offsetMinutes, offsetMinutes < 60 else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        return Date(timeIntervalSince1970: Double(days) * 86_400 + seconds - Double(offset))
    }

    /// `2026-11-22T03:00:00Z`, with `.SSS` only when the instant, rounded to the millisecond, has them.
    public static func format(_ date: Date) -> String {
        CivilDateTime(unixMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded())).iso8601
    }
}
