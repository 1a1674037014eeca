/// What PostgreSQL's catalogue says about one relation the job uses, as found on the connection's
/// `search_path` (`ApplicationSchemaCatalog` reads it; `ApplicationSchemaRule` judges it).
public struct CatalogRelation: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case table
        case view
        case materializedView = "materialized view"
        case foreignTable = "foreign table"
        case other = "relation"
    }

    public struct Column: Sendable, Equatable {
        public var name: String
        /// The type's name as `format_type` gives it without a modifier (`text`, `character varying`,
        /// `bigint`, `timestamp with time zone`), a domain's base type in place of the domain.
        public var type: String
        public var notNull: Bool
        /// For a view: whether an INSERT or UPDATE can write this column through it (a plain column of
        /// the view's one base table). Always true for a table.
        public var updatable: Bool

        public init(name: String, type: String, notNull: Bool = false, updatable: Bool = true) {
            self.name = name
            self.type = type
            self.notNull = notNull
            self.updatable = updatable
        }
    }

    /// `schema.name`, for messages.
    public var qualifiedName: String
    public var kind: Kind
    public var columns: [Column]
    /// A view with INSTEAD OF triggers: writable, but not by INSERT … ON CONFLICT.
    public var hasInsteadOfTriggers: Bool
    /// A table's unique keys that INSERT … ON CONFLICT can infer (no expression, no predicate), each as
    /// its column names.
    public var uniqueKeys: [Set<String>]

    public init(
        qualifiedName: String, kind: Kind, columns: [Column], hasInsteadOfTriggers: Bool = false,
        uniqueKeys: [Set<String>] = []
    ) {
        self.qualifiedName = qualifiedName
        self.kind = kind
        self.columns = columns
        self.hasInsteadOfTriggers = hasInsteadOfTriggers
        self.uniqueKeys = uniqueKeys
    }

    public func column(_ name: String) -> Column? { columns.first { $0.name == name } }
}
