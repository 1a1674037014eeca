/// What the job needs of the application's tables (CONTRACT §4): the columns it reads and writes, the
/// types it can read them as, and how `entitlements`, the one table it writes, must take its writes.
///
/// Pure: it judges what the catalogue says (`CatalogRelation`) and never queries. Only the columns
/// the job's SQL uses are required; anything else a table has is the application's business.
public enum ApplicationSchemaRule {
    /// The types a column may have for the job's SQL to read and write it unchanged.
    public enum ColumnType: Sendable, Equatable {
        case text, identifier, boolean, instant, interval

        /// `format_type` names this type accepts.
        var accepted: Set<String> {
            switch self {
            // The job compares, hashes (hashtextextended, for --shard) and binds these as text.
            case .text: ["text", "character varying"]
            case .identifier: ["bigint", "integer"]
            case .boolean: ["boolean"]
            // Instants: a timestamp without time zone would be read and written in the server's zone.
            case .instant: ["timestamp with time zone"]
            case .interval: ["interval"]
            }
        }

        /// For messages: what to have instead.
        public var name: String {
            switch self {
            case .text: "text (or varchar)"
            case .identifier: "bigint (or integer)"
            case .boolean: "boolean"
            case .instant: "timestamp with time zone"
            case .interval: "interval"
            }
        }

        /// How a view can turn another type into this one, when there is a usual way.
        func cast(_ column: String) -> String? {
            switch self {
            case .text: "\(column)::text"
            case .identifier, .boolean, .instant, .interval: nil
            }
        }
    }

    public struct Column: Sendable {
        public let name: String
        public let type: ColumnType
        /// The job writes this column (`entitlements` only).
        public let written: Bool
        /// The job writes NULL into it (an entitlement that does not expire, a grant without a product).
        public let writesNull: Bool

        init(_ name: String, _ type: ColumnType, written: Bool = false, writesNull: Bool = false) {
            self.name = name
            self.type = type
            self.written = written
            self.writesNull = writesNull
        }
    }

    public struct Table: Sendable {
        public let name: String
        public let columns: [Column]
        /// The job writes rows of this table (INSERT … ON CONFLICT, UPDATE, SELECT … FOR UPDATE).
        public let written: Bool
        /// The key INSERT … ON CONFLICT names, in its order.
        public let conflictKey: [String]
    }

    /// The application's tables and the columns the job uses, in the contract's order.
    public static let tables: [Table] = [
        Table(
            name: "products",
            columns: [
                Column("product_id", .text), Column("kind", .text), Column("entitlement", .text),
                Column("duration", .interval),
            ], written: false, conflictKey: []),
        Table(
            name: "receipts",
            columns: [Column("id", .identifier), Column("user_id", .text), Column("receipt_data", .text)],
            written: false, conflictKey: []),
        Table(
            name: "entitlements",
            columns: [
                Column("user_id", .text, written: true), Column("entitlement", .text, written: true),
                Column("active", .boolean, written: true),
                Column("expires_at", .instant, written: true, writesNull: true),
                Column("product_id", .text, written: true, writesNull: true),
                Column("original_transaction_id", .text, written: true, writesNull: true),
                Column("source", .text, written: true), Column("updated_at", .instant, written: true),
            ], written: true, conflictKey: ["user_id", "entitlement"]),
        Table(name: "sandbox_testers", columns: [Column("user_id", .text)], written: false, conflictKey: []),
    ]

    public static var tableNames: [String] { tables.map(\.name) }

    /// Where the operator's documentation shows how to map an app's own tables onto the contract's.
    public static let mappingGuide = "docs/integration.md#mapping-an-existing-schema-a-walk"

    /// Every way the relations found differ from what the job needs.
    /// - Parameters:
    ///   - found: the relations by their contract name; a name missing from it was not found.
    ///   - absentIsProblem: whether a missing table counts (`migrate` creates it; `migrate --check`
    ///     and a run need it).
    public static func problems(_ found: [String: CatalogRelation], absentIsProblem: Bool) -> [SchemaProblem] {
        tables.flatMap { table -> [SchemaProblem] in
            guard let relation = found[table.name] else {
                return absentIsProblem
                    ? [SchemaProblem(table: table.name, "not found on the search path")]
                    : []
            }
            return problems(of: relation, against: table)
        }
    }

    static func problems(of relation: CatalogRelation, against table: Table) -> [SchemaProblem] {
        var problems: [SchemaProblem] = []
        if table.written {
            switch relation.kind {
            case .table:
                if !relation.uniqueKeys.contains(Set(table.conflictKey)) {
                    problems.append(
                        SchemaProblem(
                            table: table.name,
                            "no unique key on (\(table.conflictKey.joined(separator: ", "))), "
                                + "which the job's INSERT … ON CONFLICT names"))
                }
            case .view where relation.hasInsteadOfTriggers:
                problems.append(
                    SchemaProblem(
                        table: table.name,
                        "a view with INSTEAD OF triggers, which INSERT … ON CONFLICT cannot write through; "
                            + "keep the contract's table and sync it with yours instead"))
            case .view:
                break
            case .materializedView, .foreignTable, .other:
                problems.append(
                    SchemaProblem(
                        table: table.name,
                        "a \(relation.kind.rawValue); the job writes it, so it must be a table or a view over one"))
            }
        }
        for column in table.columns {
            guard let found = relation.column(column.name) else {
                problems.append(
                    SchemaProblem(
                        table: table.name, column: column.name,
                        "missing; the job \(column.written ? "reads and writes" : "reads") it as \(column.type.name)"))
                continue
            }
            if !column.type.accepted.contains(found.type) {
                // A view can cast what the job only reads; nothing can be written through a cast.
                let way =
                    column.written
                    ? " (a view cannot write through a cast: keep the contract's table in sync with yours)"
                    : column.type.cast(column.name).map { " (a view can cast it: \($0))" } ?? ""
                problems.append(
                    SchemaProblem(
                        table: table.name, column: column.name,
                        "\(found.type); the job needs \(column.type.name)\(way)"))
            }
            guard column.written else { continue }
            if relation.kind == .view, !found.updatable, !relation.hasInsteadOfTriggers {
                problems.append(
                    SchemaProblem(
                        table: table.name, column: column.name,
                        "not writable through the view (only a plain column of the view's one table is); "
                            + "the job writes it"))
            }
            if column.writesNull, found.notNull, relation.kind == .table {
                problems.append(
                    SchemaProblem(
                        table: table.name, column: column.name, "NOT NULL, but the job writes NULL into it"))
            }
        }
        return problems
    }
}
