/// The one reader of timestamp text (ISO 8601 / RFC 3339 and Apple's `2019-08-21 09:11:43 Etc/GMT`):
/// `YYYY-MM-DD`, then optionally a separator (`T`, `t` or a space), `HH:MM`, then optionally `:SS` and
/// a fraction of a second after `.` or `,`. What follows, the zone, is the caller's to read
/// (`numericOffsetMinutes` reads `±hh[[:]mm]`), because each format names its zones its own way.
///
/// The reader takes every spelling any of the job's formats accepts and says which one it saw
/// (`separator`, `hasSeconds`, `fractionSeparator`), so that a narrower format refuses the rest
/// itself. It checks digits and positions only: `local.isValid` is the caller's to ask.
public struct CivilTimestamp: Sendable {
    /// The fields as written, in the text's own zone.
    public var local: CivilDateTime
    /// `T`, `t` or a space between date and time; nil for a date alone.
    public var separator: UInt8?
    /// Whether `:SS` was written (a time may stop at minutes).
    public var hasSeconds: Bool
    /// `.` or `,` before the fraction; nil without one.
    public var fractionSeparator: UInt8?
    /// Where the fraction's digits are in the text (at least one when there is a separator).
    public var fractionDigits: Range<Int>
    /// Where the zone starts (the text's end when there is none).
    public var zoneStart: Int

    /// Reads the date, time and fraction at the start of `bytes`; nil when they are not there.
    public static func read(_ bytes: [UInt8]) -> CivilTimestamp? {
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
            let day = number(2)
        else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        guard index < bytes.count, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[index])
        else {
            return CivilTimestamp(
                local: CivilDateTime(date: date), separator: nil, hasSeconds: false, fractionSeparator: nil,
                fractionDigits: index..<index, zoneStart: index)
        }
        let separator = bytes[index]
        index += 1
        guard let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2) else { return nil }
        var second: Int64 = 0
        var hasSeconds = false
        var fractionSeparator: UInt8?
        var fractionStart = index
        if skip(UInt8(ascii: ":")) {
            guard let value = number(2) else { return nil }
            second = value
            hasSeconds = true
            fractionStart = index
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                fractionSeparator = bytes[index]
                index += 1
                fractionStart = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    index += 1
                }
                guard index > fractionStart else { return nil }
            }
        }
        return CivilTimestamp(
            local: CivilDateTime(date: date, hour: hour, minute: minute, second: second), separator: separator,
            hasSeconds: hasSeconds, fractionSeparator: fractionSeparator, fractionDigits: fractionStart..<index,
            zoneStart: index)
    }

    /// `±hh`, `±hhmm` or `±hh:mm` filling all of `bytes`, as minutes east of UTC (hours below 24,
    /// minutes below 60); nil for anything else.
    public static func numericOffsetMinutes(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        let digits = Array(bytes.dropFirst())
        func pair(_ at: Int) -> Int64? {
            guard at + 2 <= digits.count,
                digits[at..<at + 2].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return Int64(digits[at] - UInt8(ascii: "0")) * 10 + Int64(digits[at + 1] - UInt8(ascii: "0"))
        }
        guard let hours = pair(0), hours < 24 else { return nil }
        let minutes: Int64
        switch digits.count {
        case 2: minutes = 0
        case 4: minutes = pair(2) ?? 60
        case 5 where digits[2] == UInt8(ascii: ":"): minutes = pair(3) ?? 60
        default: return nil
        }
        guard minutes < 60 else { return nil }
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
    }
}
