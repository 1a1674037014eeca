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

    /// A duration as an age (`72h`, `3d`) or in words (`3 days`, `12 hours`, `1 week`), in seconds.
    public func duration(_ option: String, _ text: String) throws(OptionError) -> Int {
        guard let seconds = Self.parseAge(text) ?? Self.parseWords(text) else {
            throw fail(option, "a duration such as 3 days, 12 hours, 72h or 3d", text)
        }
        return seconds
    }

    static func parseWords(_ text: String) -> Int? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 2, let number = Int(words[0]), number >= 0, words[0].count <= 6 else { return nil }
        let units: [String: Int] = ["second": 1, "minute": 60, "hour": 3600, "day": 86_400, "week": 604_800]
        let unit = words[1].lowercased()
        guard let seconds = units[unit] ?? (unit.hasSuffix("s") ? units[String(unit.dropLast())] : nil) else {
            return nil
        }
        return number * seconds
    }

    /// `YYYY-MM-DD` (midnight UTC) or an ISO 8601 instant with `Z` or an offset.
    public func instant(_ option: String, _ text: String) throws(OptionError) -> Date {
        guard let date = Instant.parse(text) else {
            throw fail(option, Instant.expected, text)
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
