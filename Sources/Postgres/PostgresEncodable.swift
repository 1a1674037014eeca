import CivilTime
import Foundation

/// A Swift value that can be sent as a query parameter.
public protocol PostgresEncodable: Sendable {
    var postgresBind: PostgresBind { get }
}

extension String: PostgresEncodable {
    public var postgresBind: PostgresBind { PostgresBind(text: self, typeOID: PostgresTypeOID.unknown) }
}

extension Substring: PostgresEncodable {
    public var postgresBind: PostgresBind { String(self).postgresBind }
}

extension Int: PostgresEncodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self), typeOID: PostgresTypeOID.int8) }
}

extension Int64: PostgresEncodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self), typeOID: PostgresTypeOID.int8) }
}

extension Int32: PostgresEncodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self), typeOID: PostgresTypeOID.int4) }
}

extension Bool: PostgresEncodable {
    public var postgresBind: PostgresBind { PostgresBind(text: self ? "true" : "false", typeOID: PostgresTypeOID.bool) }
}

extension Double: PostgresEncodable {
    public var postgresBind: PostgresBind {
        let text: String
        if isNaN {
            text = "NaN"
        } else if isInfinite {
            text = self < 0 ? "-Infinity" : "Infinity"
        } else {
            text = "\(self)"  // Swift prints the shortest text that reads back to the same Double.
        }
        return PostgresBind(text: text, typeOID: PostgresTypeOID.float8)
    }
}

extension Date: PostgresEncodable {
    /// Microsecond precision, always written in UTC so the session time zone cannot change its meaning.
    public var postgresBind: PostgresBind {
        PostgresBind(text: PostgresTimestamp.format(self), typeOID: PostgresTypeOID.timestamptz)
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresBind: PostgresBind {
        switch self {
        case .some(let value): return value.postgresBind
        case .none: return .null(typeOID: Self.wrappedTypeOID)
        }
    }

    private static var wrappedTypeOID: UInt32 {
        switch Wrapped.self {
        case is Int.Type, is Int64.Type: return PostgresTypeOID.int8
        case is Int32.Type: return PostgresTypeOID.int4
        case is Bool.Type: return PostgresTypeOID.bool
        case is Double.Type: return PostgresTypeOID.float8
        case is Date.Type: return PostgresTypeOID.timestamptz
        case is CalendarDuration.Type: return PostgresTypeOID.interval
        case is PostgresJSON.Type: return PostgresTypeOID.jsonb
        default: return PostgresTypeOID.unknown
        }
    }
}

extension PostgresBind: PostgresEncodable {
    public var postgresBind: PostgresBind { self }
}

extension Array: PostgresEncodable where Element == String {
    /// A `text[]` literal, every element quoted. For `= ANY(\(ids))`, which plans as an index
    /// scan where an `IN (VALUES …)` list may be hashed against a whole table.
    public var postgresBind: PostgresBind {
        var literal = PostgresArrayLiteral()
        for element in self { literal.append(element) }
        return PostgresBind(text: literal.closed, typeOID: PostgresTypeOID.textArray)
    }
}
