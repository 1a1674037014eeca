/// The rows of one result, copied out of libpq before its `PGresult` was cleared.
public struct PostgresRows: Sendable, RandomAccessCollection {
    public let columns: [String]
    public let rows: [PostgresRow]
    /// Rows inserted, updated or deleted by the command (0 for a plain SELECT's own count).
    public let affectedRows: Int

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }
}

/// One row: column values in text format (`nil` is SQL NULL), read with typed accessors.
public struct PostgresRow: Sendable {
    let columnIndex: ColumnIndex
    public let values: [String?]

    /// The value of `column` as `T`; use an optional `T` for nullable columns.
    ///
    ///     let expiresAt: Date? = try row.decode("expires_at")
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let index = columnIndex.position(of: column) else {
            throw PostgresError.decoding(
                "no column '\(column)' in the result (columns: \(columnIndex.names.joined(separator: ", ")))")
        }
        return try decode(at: index, as: type)
    }

    public func decode<T: PostgresDecodable>(at index: Int, as type: T.Type = T.self) throws -> T {
        do {
            return try T.decode(postgresText: values[index])
        } catch let error as PostgresError {
            throw PostgresError.decoding("column '\(columnIndex.names[index])': \(error.message)")
        }
    }
}

/// Column names shared by all rows of a result.
final class ColumnIndex: Sendable {
    let names: [String]
    let positions: [String: Int]

    init(names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name] == nil {
            positions[name] = index
        }
        self.positions = positions
    }

    /// Where the first column named `name` is. A few columns are scanned rather than hashed: the job
    /// reads every value of its pages by name, and hashing the name (SipHash) cost more than a scan
    /// comparing short names, which are inline strings compared as two words.
    func position(of name: String) -> Int? {
        guard names.count <= 12 else { return positions[name] }
        return names.firstIndex(of: name)
    }
}
