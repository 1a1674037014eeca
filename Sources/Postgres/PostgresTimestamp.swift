import CivilTime
import Foundation

/// Text conversion for `timestamptz`, exact to the microsecond and independent of the session time zone.
///
/// Written by hand rather than with `DateFormatter`: formatters are slow, not thread-safe to share,
/// and round to milliseconds.
public enum PostgresTimestamp {
    /// `YYYY-MM-DD HH:MM:SS.ffffff+00`, which PostgreSQL reads back exactly.
    public static func format(_ date: Date) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(29)
        append(date, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `format(date)`'s UTF-8 to `bytes`: the array writers format instants straight into
    /// their literals.
    public static func append(_ date: Date, to bytes: inout [UInt8]) {
        let civil = CivilDateTime(unixMicroseconds: date.unixMicroseconds)
        let (year, month, day) = (civil.date.year, civil.date.month, civil.date.day)
        guard (0...9999).contains(year) else {
            // Outside what a run writes; kept exactly as it always was, padding and all.
            let text =
                "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
                + "\(pad(civil.hour, 2)):\(pad(civil.minute, 2)):\(pad(civil.second, 2))"
                + ".\(pad(civil.microsecond, 6))+00"
            return bytes.append(contentsOf: text.utf8)
        }
        // Every instant a run writes: fixed-width digits written into a buffer on the stack, then
        // appended at once (the writers format tens of thousands of instants a batch).
        let template: StaticString = "0000-00-00 00:00:00.000000+00"
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: template.utf8CodeUnitCount) { text in
            _ = text.initialize(from: UnsafeBufferPointer(start: template.utf8Start, count: template.utf8CodeUnitCount))
            func put(_ value: Int64, _ width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    text[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            put(month, 2, at: 5)
            put(day, 2, at: 8)
            put(civil.hour, 2, at: 11)
            put(civil.minute, 2, at: 14)
            put(civil.second, 2, at: 17)
            put(civil.microsecond, 6, at: 20)
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Parses PostgreSQL's ISO output (`DateStyle = ISO`) in any session time zone:
    /// `2024-03-01 12:34:56.123456+05:30`, offsets with seconds (`-00:01:15`), no fraction.
    public static func parse(_ text: String) throws -> Date {
        var scanner = DigitScanner(text)
        guard let year = scanner.number(), scanner.skip("-"),
            let month = scanner.number(count: 2), scanner.skip("-"),
            let day = scanner.number(count: 2), scanner.skip(" ") || scanner.skip("T"),
            let hour = scanner.number(count: 2), scanner.skip(":"),
            let minute = scanner.number(count: 2), scanner.skip(":"),
            let second = scanner.number(count: 2)
        else { throw PostgresError.decoding("'\(text)' is not a timestamptz in ISO style") }
        var micros: Int64 = 0
        if scanner.skip(".") {
            guard let (fraction, digits) = scanner.numberWithCount(), digits <= 6 else {
                throw PostgresError.decoding("'\(text)' has more than microsecond precision")
            }
            micros = fraction * Int64(pow(10.0, Double(6 - digits)))
        }
        var offsetSeconds: Int64 = 0
        if let next = scanner.peek, next == UInt8(ascii: "+") || next == UInt8(ascii: "-") || next == UInt8(ascii: "Z")
        {
            let sign: Int64 = next == UInt8(ascii: "-") ? -1 : 1
            if scanner.skip("Z") {
                offsetSeconds = 0
            } else {
                _ = scanner.skip("+") || scanner.skip("-")
                guard let hours = scanner.number(count: 2) else {
                    throw PostgresError.decoding("'\(text)' has an unreadable UTC offset")
                }
                var total = hours * 3600
                if scanner.skip(":"), let minutes = scanner.number(count: 2) { total += minutes * 60 }
                if scanner.skip(":"), let seconds = scanner.number(count: 2) { total += seconds }
                offsetSeconds = sign * total
            }
        }
        guard scanner.isAtEnd else {
            throw PostgresError.decoding("'\(text)' is not a timestamptz this program can represent (BC or infinity?)")
        }
        let local = CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return Date(unixMicroseconds: (local.unixSeconds - offsetSeconds) * 1_000_000 + micros)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// A tiny cursor over ASCII digits and punctuation.
struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var isAtEnd: Bool { index == bytes.count }
    /// The next byte. A byte, not a `Character`: building one per look was most of parsing a timestamp.
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    mutating func skip(_ literal: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: literal) else { return false }
        index += 1
        return true
    }

    /// Reads exactly `count` digits, or as many as there are when `count` is nil.
    mutating func number(count: Int? = nil) -> Int64? {
        let start = index
        guard let (value, digits) = numberWithCount(), count == nil || digits == count else {
            index = start
            return nil
        }
        return value
    }

    mutating func numberWithCount() -> (Int64, Int)? {
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 18 {
            value = value * 10 + Int64(bytes[index] - 0x30)
            index += 1
            digits += 1
        }
        return digits == 0 ? nil : (value, digits)
    }
}
