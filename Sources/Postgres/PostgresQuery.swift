/// SQL text with its parameters. Interpolated values become `$n` parameters, never SQL text:
///
///     let rows = try connection.query("SELECT id FROM receipts WHERE user_id = \(userID) AND id > \(cursor)")
///
/// Identifiers and fragments that come from this program's own code (never from data) can be spliced
/// with `\(unescaped: …)`; the name makes the unsafe path visible in review.
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation {
    public private(set) var sql: String
    public private(set) var binds: [PostgresBind]

    /// SQL without parameters, or with `$n` placeholders matched by `binds`.
    public init(unsafeSQL sql: String, binds: [PostgresBind] = []) {
        self.sql = sql
        self.binds = binds
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var binds: [PostgresBind] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        /// A NULL when `value` is nil (an explicit overload, so optionals interpolate without a warning).
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        /// Splices trusted SQL text (an identifier or keyword chosen by this program). Never pass data.
        public mutating func appendInterpolation(unescaped fragment: String) {
            sql += fragment
        }
    }
}
