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
    public func insert(into table: String, columns: [String], rows: [[any PostgresEncodable]], suffix: String = "")
        throws
        -> Int
    {
        guard let first = rows.first else { return 0 }
        let types = first.map { PostgresArrayLiteral.elementType($0.postgresBind.typeOID) }
        var literals = [PostgresArrayLiteral](repeating: PostgresArrayLiteral(), count: columns.count)
        for row in rows {
            guard row.count == columns.count else {
                throw PostgresError(
                    kind: .client, message: "insert row has \(row.count) values for \(columns.count) columns")
            }
            for (column, value) in row.enumerated() { literals[column].append(value.postgresBind.text) }
        }
        return try executePrepared(
            sql: Self.unnestInsertSQL(table: table, columns: columns, types: types, suffix: suffix),
            texts: literals.map(\.closed))
    }

    /// Inserts the rows of `columns`, the same statement as `insert(into:columns:rows:suffix:)`
    /// with each column's type from its Swift element type: the writers' path, which builds each
    /// column's literal as it goes instead of a row of boxed values per row.
    ///
    /// - Parameters:
    ///   - columns: equally long columns, in the table's `INSERT` column order.
    ///   - prefix: SQL before the `INSERT`, with `suffix` making it part of a larger statement (`WITH
    ///     written AS (` … `RETURNING …) INSERT INTO …`): whatever reads the inserted rows runs in the
    ///     same statement, with no second round trip.
    /// - Returns: the number of rows the statement inserted or updated (the outer one's, with a
    ///   prefix); 0 without a statement when the columns are empty.
    @discardableResult
    public func insert(
        into table: String, columns: [any PostgresInsertColumn], prefix: String = "", suffix: String = ""
    ) throws -> Int {
        guard let rows = columns.first?.count, rows > 0 else { return 0 }
        let sql =
            prefix
            + Self.unnestInsertSQL(
                table: table, columns: columns.map(\.name), types: columns.map(\.elementType),
                suffix: suffix)
        return try insert(statement: sql, columns: columns)
    }

    /// `insert(into:columns:prefix:suffix:)` with the statement's text built once by the caller
    /// (`unnestInsertSQL`, then its prefix and suffix): a writer of the same table batch after batch.
    @discardableResult
    public func insert(statement sql: String, columns: [any PostgresInsertColumn]) throws -> Int {
        guard let rows = columns.first?.count, rows > 0 else { return 0 }
        guard columns.allSatisfy({ $0.count == rows }) else {
            throw PostgresError(kind: .client, message: "insert columns of different lengths: \(columns.map(\.count))")
        }
        return try executePrepared(sql: sql, parameters: columns.map(\.parameter))
    }

    public static func unnestInsertSQL(table: String, columns: [String], types: [String], suffix: String) -> String {
        let parameters = types.indices.map { "$\($0 + 1)::\(types[$0])[]" }.joined(separator: ", ")
        return "INSERT INTO \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", ")))"
            + " SELECT * FROM unnest(\(parameters)) \(suffix)"
    }
}

/// A PostgreSQL array literal built element by element: `{"a",NULL,"b \"quoted\""}`.
/// Every element is quoted, so commas, braces, quotes and backslashes stay data.
@usableFromInline
struct PostgresArrayLiteral {
    // Bytes, not String appends: a batch builds thousands of elements per column.
    @usableFromInline var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(max(capacity, 2))
        bytes.append(UInt8(ascii: "{"))
    }

    mutating func append(_ element: String?) {
        guard let element else { return appendNull() }
        appendQuoted { element.appendArrayElementText(to: &$0) }
    }

    @inlinable
    mutating func appendNull() {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: "NULL".utf8)
    }

    /// Appends one quoted element whose text `write` appends, already escaped.
    @inlinable
    mutating func appendQuoted(_ write: (inout [UInt8]) -> Void) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// The literal with its closing brace.
    var closed: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    /// The literal with its closing brace and a NUL, as libpq takes a parameter.
    var closedCString: [UInt8] { bytes + [UInt8(ascii: "}"), 0] }

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
