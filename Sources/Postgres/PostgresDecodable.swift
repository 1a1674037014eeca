import Foundation

/// A Swift value that can be read from a column in libpq's text format.
public protocol PostgresDecodable {
    /// Builds the value from the column's text, or from `nil` for SQL NULL.
    /// Non-optional types throw on NULL; `Optional` turns NULL into `nil`.
    static func decode(postgresText text: String?) throws -> Self
}

extension PostgresDecodable {
    static func requireText(_ text: String?) throws -> String {
        guard let text else { throw PostgresError.decoding("unexpected NULL for a non-optional \(Self.self)") }
        return text
    }
}

extension FixedWidthInteger where Self: PostgresDecodable {
    /// The integer `text` spells, which the SQL type `sqlType` names in the message of one that does not.
    static func decodeInteger(postgresText text: String?, sqlType: String) throws -> Self {
        let text = try requireText(text)
        guard let value = Self(text) else { throw PostgresError.decoding("'\(text)' is not \(sqlType)") }
        return value
    }
}

extension String: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> String { try requireText(text) }
}

extension Int64: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Int64 {
        try decodeInteger(postgresText: text, sqlType: "a bigint")
    }
}

extension Int: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Int {
        Int(try Int64.decode(postgresText: text))
    }
}

extension Int32: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Int32 {
        try decodeInteger(postgresText: text, sqlType: "an integer")
    }
}

extension Bool: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Bool {
        switch try requireText(text) {
        case "t", "true": return true
        case "f", "false": return false
        case let other: throw PostgresError.decoding("'\(other)' is not a boolean")
        }
    }
}

extension Double: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Double {
        let text = try requireText(text)
        guard let value = Double(text) else { throw PostgresError.decoding("'\(text)' is not a double") }
        return value
    }
}

extension Date: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Date {
        try PostgresTimestamp.parse(try requireText(text))
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Wrapped? {
        guard let text else { return nil }
        return try Wrapped.decode(postgresText: text)
    }
}
