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

    /// `2026-11-22T03:00:00Z`, with `.SSS` only when the instant, rounded to the millisecond, has them.
    public static func format(_ date: Date) -> String {
        CivilDateTime(unixMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded())).iso8601
    }
}
