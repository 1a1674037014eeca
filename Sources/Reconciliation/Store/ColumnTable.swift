import Foundation
import Postgres

/// A job table's columns, declared once: the `INSERT` column list, each column's values, the
/// `ON CONFLICT … DO UPDATE SET` list and the export's columns are all generated from `columns`, so a
/// new column is one entry here (plus its migration and the record's field).
///
/// The order of `columns` is the export's order (CONTRACT §8 fixes it); the `INSERT` lists the written
/// columns in the same order. `ColumnTableSchemaTests` checks every table against a migrated database.
struct ColumnTable<Record>: Sendable {
    let name: String
    let columns: [TableColumn<Record>]
    /// What an `INSERT` that meets an existing row does.
    let conflict: Conflict
    /// `conflict` as SQL, generated from the columns' `onConflict`.
    let conflictClause: String
    /// `INSERT INTO name (written columns) SELECT * FROM unnest($1::type[], …) `: built once, not per
    /// batch (its text cost more to build than a small batch's rows).
    private let insertHead: String

    init(name: String, columns: [TableColumn<Record>], conflict: Conflict) {
        self.name = name
        self.columns = columns
        self.conflict = conflict
        conflictClause = Self.conflictClause(conflict, columns)
        let written = columns.filter { $0.values != nil }
        insertHead = PostgresConnection.unnestInsertSQL(
            table: name, columns: written.map(\.name), types: written.map { $0.elementType ?? "text" }, suffix: "")
    }

    enum Conflict: Sendable {
        /// No `ON CONFLICT` clause: a conflict is an error.
        case none
        /// `ON CONFLICT DO NOTHING`.
        case nothing
        /// `ON CONFLICT (key) DO UPDATE SET …`, each column as its `onConflict` says.
        case update(key: [String])
    }

    /// The columns this table's writer fills.
    var written: [TableColumn<Record>] { columns.filter { $0.values != nil } }

    private static func conflictClause(_ conflict: Conflict, _ columns: [TableColumn<Record>]) -> String {
        switch conflict {
        case .none: return ""
        case .nothing: return "ON CONFLICT DO NOTHING"
        case .update(let key):
            let sets = columns.compactMap { column -> String? in
                switch column.onConflict {
                case .kept: return nil
                case .excluded: return "\(column.name) = EXCLUDED.\(column.name)"
                case .set(let expression): return "\(column.name) = \(expression)"
                }
            }
            return "ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET " + sets.joined(separator: ", ")
        }
    }

    /// Inserts `rows` into the table: one array parameter per written column, then the conflict clause
    /// and `suffix` (`PostgresConnection.insert(into:columns:prefix:suffix:)`).
    @discardableResult
    func insert(_ rows: BatchRows<Record>, on connection: PostgresConnection, prefix: String = "", suffix: String = "")
        throws -> Int
    {
        let clause = [conflictClause, suffix].filter { !$0.isEmpty }.joined(separator: "\n")
        return try connection.insert(statement: prefix + insertHead + clause, columns: written.map { $0.values!(rows) })
    }

    /// The export's columns (`ReconciliationExport.columns`): every column with an `export`, in order.
    var exported: [ReconciliationExport.Column] {
        columns.compactMap { column in
            column.export.map {
                ReconciliationExport.Column(
                    name: column.name, expression: $0.expression ?? "x.\(column.name)", kind: $0.kind)
            }
        }
    }
}

/// One column of a `ColumnTable`: its name, where its values come from, what an upsert does with it
/// and how the export shows it.
struct TableColumn<Record>: Sendable {
    let name: String
    /// Builds the column's `INSERT` parameter from a batch's rows; nil for a column the writer leaves
    /// to its default or to another writer (`id`, `created_at`) or that only an upsert sets.
    let values: (@Sendable (BatchRows<Record>) -> any PostgresInsertColumn)?
    /// The SQL type of `values`' elements (`bigint`, `text`, …); nil when there are none.
    let elementType: String?
    let onConflict: OnConflict
    let export: Export?

    enum OnConflict: Sendable {
        /// Left as it is: a key, or a value the first write keeps (`first_run_id`).
        case kept
        /// `name = EXCLUDED.name`: the latest write wins.
        case excluded
        /// `name = expression` (SQL from this program's code).
        case set(String)
    }

    /// How the export shows a column: its kind and, when it is not `x.name`, the SQL that reads it.
    struct Export: Sendable {
        let kind: ReconciliationExport.Kind
        let expression: String?
    }

    /// A column the writer fills with `value` of each row.
    static func written<Value: PostgresArrayElement>(
        _ name: String, _ value: @escaping @Sendable (InPlace<Record>, InPlace<RowContext>) -> Value?,
        onConflict: OnConflict = .excluded,
        export: ReconciliationExport.Kind? = nil
    ) -> TableColumn {
        TableColumn(
            name: name,
            values: { rows in
                var column = PostgresArrayColumn<Value>(name, expectedCount: rows.count)
                rows.forEachRow { record, context in column.append(value(record, context)) }
                return column
            }, elementType: Value.arrayElementType, onConflict: onConflict,
            export: export.map { Export(kind: $0, expression: nil) })
    }

    /// `written` for a value with a binary send form: the column is sent as a binary array
    /// (`PostgresBinaryArrayColumn`), with nothing formatted or escaped per cell. The text overload
    /// above serves the rest (numerics).
    static func written<Value: PostgresBinaryArrayElement>(
        _ name: String, _ value: @escaping @Sendable (InPlace<Record>, InPlace<RowContext>) -> Value?,
        onConflict: OnConflict = .excluded,
        export: ReconciliationExport.Kind? = nil
    ) -> TableColumn {
        TableColumn(
            name: name,
            values: { rows in
                var column = PostgresBinaryArrayColumn<Value>(name, expectedCount: rows.count)
                rows.forEachRow { record, context in column.append(value(record, context)) }
                return column
            }, elementType: Value.arrayElementType, onConflict: onConflict,
            export: export.map { Export(kind: $0, expression: nil) })
    }

    /// A column of the table the writer does not fill: a default, another writer's, or one an upsert
    /// sets (`onConflict`).
    static func unwritten(_ name: String, onConflict: OnConflict = .kept, export: ReconciliationExport.Kind? = nil)
        -> TableColumn
    {
        TableColumn(
            name: name, values: nil, elementType: nil, onConflict: onConflict,
            export: export.map { Export(kind: $0, expression: nil) })
    }

    /// An export column that is not the table's: a joined table's or computed (`expression`).
    static func joined(_ name: String, _ kind: ReconciliationExport.Kind, _ expression: String) -> TableColumn {
        TableColumn(
            name: name, values: nil, elementType: nil, onConflict: .kept,
            export: Export(kind: kind, expression: expression))
    }

    /// Whether the column is the table's own, not a joined table's.
    var isOwn: Bool { export?.expression == nil }
}

/// What a row's values come from beside its record: the run, the record's user, the batch's instant.
struct RowContext {
    let runID: Int64
    let userID: String
    let verifiedAt: Date
    let dryRun: Bool
}

/// A batch's rows of one table: the records at `positions` of each user's records, with the user's
/// context.
struct BatchRows<Record> {
    let records: [[Record]]
    let contexts: [RowContext]
    let positions: [(user: Int, index: Int)]

    var count: Int { positions.count }

    /// Every row in `positions` order, each record and context read where it is (`InPlace`).
    func forEachRow(_ body: (InPlace<Record>, InPlace<RowContext>) -> Void) {
        records.withUnsafeBufferPointer { records in
            contexts.withUnsafeBufferPointer { contexts in
                for (user, index) in positions {
                    records[user].withUnsafeBufferPointer {
                        body(InPlace(pointer: $0.baseAddress! + index), InPlace(pointer: contexts.baseAddress! + user))
                    }
                }
            }
        }
    }
}

/// A batch's record or row context as a column's value closure reads it: in place, field by field
/// (`record.productID`, `row.runID`).
///
/// Handing the value itself to the opaque closure makes the caller copy it into a temporary, retaining
/// and releasing its every string, once per cell: a transaction row is 30 cells of a 20-string record
/// (docs/benchmarks.md). Valid only inside `BatchRows.forEachRow`'s body.
@dynamicMemberLookup
struct InPlace<Value> {
    fileprivate let pointer: UnsafePointer<Value>

    @inline(__always)
    subscript<Field>(dynamicMember field: KeyPath<Value, Field>) -> Field { pointer.pointee[keyPath: field] }
}
