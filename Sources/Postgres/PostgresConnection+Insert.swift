import CLibPQ

extension PostgresConnection {
    /// Inserts `rows` with one `INSERT … SELECT * FROM unnest($1::type[], $2::type[], …)`: one
    /// array parameter per column, whatever the number of rows, for callers that need
    /// `ON CONFLICT` (`suffix`), which COPY cannot do.
    ///
    /// Why arrays: the statement text depends only on the table, columns and suffix, so it is
    /// prepared once per connection and each batch skips the server's parse and plan; a
    /// `VALUES ($1, …), (…)` list is a new statement for every row count, planned every time, and
    /// costs a parameter per value on both sides. Each column's type is the first row's parameter
    /// type (typed NULLs included); text where the value is a string.
    ///
    /// - Parameters:
    ///   - table, columns, suffix: SQL from this program's code, never data.
    ///   - rows: each row's values in `columns` order.
    /// - Returns: the number of rows inserted or updated.
    @discardableResult
    public func insert(into table: String, columns: [String], rows: [[any PostgresEncodable]], suffix: String = "") throws
        -> Int {
        guard let first = rows.first else { return 0 }
        let types = first.map { PostgresArrayLiteral.elementType($0.postgresBind.typeOID) }
        var literals = [PostgresArrayLiteral](repeating: PostgresArrayLiteral(), count: columns.count)
        for row in rows {
            guard row.count == columns.count else {
                throw PostgresError(kind: .client, message: "insert row has \(row.count) values for \(columns.count) columns")
            }
            for (column, value) in row.enumerated() { literals[column].append(value.postgresBind.text) }
        }
        let parameters = types.indices.map { "$\($0 + 1)::\(types[$0])[]" }.joined(separator: ", ")
        let sql = "INSERT INTO \(Self.quoteIdentifier(table)) (\(columns.map(Self.quoteIdentifier).joined(separator: ", ")))"
            + " SELECT * FROM unnest(\(parameters)) \(suffix)"
        return try executePrepared(sql: sql, texts: literals.map(\.closed))
    }
}

/// A PostgreSQL array literal built element by element: `{"a",NULL,"b \"quoted\""}`.
/// Every element is quoted, so commas, braces, quotes and backslashes stay data.
struct PostgresArrayLiteral {
    // Bytes, not String appends: a batch builds thousands of elements per column.
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    mutating func append(_ element: String?) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        guard let element else {
            bytes += [UInt8(ascii: "N"), UInt8(ascii: "U"), UInt8(ascii: "L"), UInt8(ascii: "L")]
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in element.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The literal with its closing brace.
    var closed: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    /// The SQL element type for a parameter type; text for strings and unknown types.
    static func elementType(_ oid: UInt32) -> String {
        switch oid {
        case PostgresTypeOID.int8: return "bigint"
        case PostgresTypeOID.int4: return "integer"
        case PostgresTypeOID.bool: return "boolean"
        case PostgresTypeOID.float8: return "double precision"
        case PostgresTypeOID.timestamptz: return "timestamptz"
        case PostgresTypeOID.interval: return "interval"
        case PostgresTypeOID.jsonb: return "jsonb"
        default: return "text"
        }
    }
}
