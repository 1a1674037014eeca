/// A date and time of day in UTC, to the microsecond, and its place on the Unix time line
/// (seconds since 1970-01-01T00:00:00Z, every day 86 400 seconds long, as POSIX counts).
public struct CivilDateTime: Hashable, Sendable {
    public var date: CivilDate
    public var hour: Int64
    public var minute: Int64
    /// 0 through 59, or 60 for a leap second, which the Unix time line has no room for: it counts
    /// as the first second of the next minute.
    public var second: Int64
    /// 0 through 999 999.
    public var microsecond: Int64

    /// Takes the fields as they are; check `isValid` before converting fields read from text.
    public init(date: CivilDate, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, microsecond: Int64 = 0) {
        self.date = date
        self.hour = hour
        self.minute = minute
        self.second = second
        self.microsecond = microsecond
    }

    public init(
        year: Int64, month: Int64, day: Int64, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0,
        microsecond: Int64 = 0
    ) {
        self.init(
            date: CivilDate(year: year, month: month, day: day), hour: hour, minute: minute, second: second,
            microsecond: microsecond)
    }

    public init(unixSeconds: Int64) {
        let (days, secondOfDay) = unixSeconds.floorDivided(by: 86_400)
        self.init(
            date: CivilDate(daysSince1970: days), hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60)
    }

    public init(unixMilliseconds: Int64) {
        let (seconds, millisecond) = unixMilliseconds.floorDivided(by: 1000)
        self.init(unixSeconds: seconds)
        microsecond = millisecond * 1000
    }

    public init(unixMicroseconds: Int64) {
        let (seconds, microsecond) = unixMicroseconds.floorDivided(by: 1_000_000)
        self.init(unixSeconds: seconds)
        self.microsecond = microsecond
    }

    /// Whole seconds since 1970-01-01T00:00:00Z, negative before it; the microseconds are dropped.
    public var unixSeconds: Int64 {
        date.daysSince1970 * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Microseconds since 1970-01-01T00:00:00Z, negative before it.
    public var unixMicroseconds: Int64 {
        unixSeconds * 1_000_000 + microsecond
    }

    /// 0 through 999: the microseconds truncated.
    public var millisecond: Int64 { microsecond / 1000 }

    /// Whether every field is in range: a valid date, 00:00:00 to 23:59:60, microseconds below a second.
    public var isValid: Bool {
        date.isValid && (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second)
            && (0..<1_000_000).contains(microsecond)
    }
}
