import Foundation

/// `Date` to and from whole microseconds since 1970, the precision of PostgreSQL's `timestamptz`
/// and of `CalendarDuration`.
extension Date {
    /// Microseconds since 1970-01-01T00:00:00Z, rounded to the nearest: a `Date` is a binary
    /// fraction, and `1.123` stored as `1.12299999...` must not lose its last microsecond.
    public var unixMicroseconds: Int64 {
        Int64((timeIntervalSince1970 * 1_000_000).rounded())
    }

    public init(unixMicroseconds: Int64) {
        self.init(timeIntervalSince1970: Double(unixMicroseconds) / 1_000_000)
    }
}
