import CivilTime
import Foundation

/// An entitlement's end, ordered the way docs/reconciliation-rules.md compares expiries: at
/// millisecond precision (Apple's resolution), with "never expires" (`expires_at` NULL) later
/// than any instant.
///
/// Database values carry microseconds; truncating both sides to the millisecond keeps a row the
/// job wrote from Apple's `_ms` value equal to that value, which is what makes a second run
/// write nothing (CONTRACT §6, idempotent).
public enum Expiry: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970, truncated toward the past.
    case at(milliseconds: Int64)
    case never

    /// `nil` is "never expires", as in `entitlements.expires_at`.
    public init(_ date: Date?) {
        guard let date else {
            self = .never
            return
        }
        self = .at(milliseconds: Self.milliseconds(of: date))
    }

    /// Milliseconds since 1970, truncated toward the past, after rounding to the microsecond so
    /// that binary floating point (`1.123` stored as `1.12299999...`) cannot lose a millisecond.
    public static func milliseconds(of date: Date) -> Int64 {
        let (milliseconds, remainder) = date.unixMicroseconds.quotientAndRemainder(dividingBy: 1_000)
        return remainder < 0 ? milliseconds - 1 : milliseconds
    }

    /// As `entitlements.expires_at`: nil for `.never`.
    public var date: Date? {
        switch self {
        case .at(let milliseconds): Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
        case .never: nil
        }
    }

    /// Whether access with this end still runs at `instant` ("active while expiry > as_of").
    public func isAfter(_ instant: Date) -> Bool {
        self > Expiry(instant)
    }

    public static func < (lhs: Expiry, rhs: Expiry) -> Bool {
        switch (lhs, rhs) {
        case (.at(let l), .at(let r)): l < r
        case (.at, .never): true
        case (.never, _): false
        }
    }

    public var description: String {
        switch self {
        case .never: "never"
        case .at(let milliseconds): "\(milliseconds) ms"
        }
    }
}
