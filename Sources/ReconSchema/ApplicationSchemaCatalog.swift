import Postgres

/// Reads from PostgreSQL's catalogue what `ApplicationSchemaRule` judges: the application's tables as
/// this connection's role resolves their names (its `search_path`), and where the job's own tables are.
///
/// pg_catalog, not information_schema: information_schema hides the columns of a table the role has
/// no privilege on, which would turn a missing GRANT into "missing column".
public enum ApplicationSchemaCatalog {
    /// The relations named `names` as the search path resolves them; a name found nowhere is left out.
    public static func relations(_ names: [String], on connection: PostgresConnection) throws
        -> [String: CatalogRelation]
    {
        let rows = try connection.query(
            """
            SELECT r.name, n.nspname || '.' || c.relname AS qualified, c.relkind::text AS relkind,
                   a.attname::text AS column_name,
                   format_type(CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END, NULL) AS type,
                   coalesce(a.attnotnull, false) AS not_null,
                   coalesce(pg_column_is_updatable(c.oid, a.attnum, false), false) AS updatable,
                   EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND (g.tgtype & 64) <> 0) AS instead_of,
                   (SELECT string_agg(
                               (SELECT string_agg(k.attname::text, ',') FROM pg_attribute k
                                WHERE k.attrelid = i.indrelid AND k.attnum = ANY(i.indkey)), ';')
                    FROM pg_index i
                    WHERE i.indrelid = c.oid AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
                   ) AS unique_keys
            FROM unnest(\(names)::text[]) AS r(name)
            JOIN pg_class c ON c.oid = to_regclass(r.name)
            JOIN pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            LEFT JOIN pg_type t ON t.oid = a.atttypid
            ORDER BY r.name, a.attnum
            """)
        var found: [String: CatalogRelation] = [:]
        for row in rows {
            let name: String = try row.decode("name")
            if found[name] == nil {
                let keys: String = try row.decode("unique_keys") ?? ""
                found[name] = CatalogRelation(
                    qualifiedName: try row.decode("qualified"), kind: kind(try row.decode("relkind")), columns: [],
                    hasInsteadOfTriggers: try row.decode("instead_of"),
                    uniqueKeys: keys.split(separator: ";").map { Set($0.split(separator: ",").map(String.init)) })
            }
            if let column: String = try row.decode("column_name") {
                let updatable: Bool = try row.decode("updatable")
                let isTable = found[name]?.kind == .table
                found[name]?.columns.append(
                    CatalogRelation.Column(
                        name: column, type: try row.decode("type"), notNull: try row.decode("not_null"),
                        updatable: isTable || updatable))
            }
        }
        return found
    }

    static func kind(_ relkind: String) -> CatalogRelation.Kind {
        switch relkind {
        case "r", "p": .table
        case "v": .view
        case "m": .materializedView
        case "f": .foreignTable
        default: .other
        }
    }

    /// The role and its effective search path (schemas it may use), for messages.
    public static func session(on connection: PostgresConnection) throws -> (role: String, searchPath: [String]) {
        let row = try connection.query(
            "SELECT current_user::text AS role, array_to_string(current_schemas(false), ',') AS path"
        ).first!
        let path: String = try row.decode("path") ?? ""
        return (try row.decode("role"), path.split(separator: ",").map(String.init))
    }

    /// The tables and views on the search path that are neither the application's (`names`) nor the
    /// job's (`recon_*`), nor an extension's: a schema holding them is an app's, whose data the job must
    /// reach through a mapping rather than through empty tables `migrate` would create beside it.
    public static func otherRelations(besides names: [String], on connection: PostgresConnection) throws
        -> [String]
    {
        try connection.query(
            """
            SELECT n.nspname || '.' || c.relname AS name
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = ANY (current_schemas(false)) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
              AND NOT c.relispartition AND NOT (c.relname = ANY (\(names)::text[]))
              AND c.relname NOT LIKE 'recon\\_%'
              AND NOT EXISTS (SELECT 1 FROM pg_depend d
                              WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
            ORDER BY 1
            """
        ).map { try $0.decode("name") }
    }

    /// Schemas holding a `recon_schema_migrations` table, and whether this role may use each: where the
    /// job's tables are when the search path does not find them.
    public static func jobSchemas(on connection: PostgresConnection) throws -> [(schema: String, usable: Bool)] {
        try connection.query(
            """
            SELECT n.nspname::text AS schema, has_schema_privilege(n.oid, 'USAGE') AS usable
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relname = 'recon_schema_migrations' AND c.relkind IN ('r', 'p')
            ORDER BY 1
            """
        ).map { (try $0.decode("schema"), try $0.decode("usable")) }
    }

    /// Whether PostgreSQL can plan the job's upsert into `entitlements` (`EXPLAIN` runs nothing): the
    /// one thing the catalogue cannot say for a view, whether INSERT … ON CONFLICT finds a unique key
    /// on its base table.
    /// - Returns: a problem when it cannot; nil when it can, or when this role may not write
    ///   `entitlements` (`migrate` may run as a role that does not need to: the run's own role is what
    ///   matters, and its first write says so with exit 77).
    /// - Throws: a `PostgresError` other than the shape's or a permission's.
    public static func probeEntitlementsUpsert(on connection: PostgresConnection) throws -> SchemaProblem? {
        do {
            try connection.execute(PostgresQuery(unsafeSQL: "EXPLAIN " + EntitlementUpsert.probeStatement))
            return nil
        } catch let error as PostgresError where DatabaseErrorAdvice.kind(of: error) == .permission {
            return nil
        } catch let error as PostgresError where DatabaseErrorAdvice.kind(of: error) == .schemaShape {
            return SchemaProblem(
                table: "entitlements",
                "the job's INSERT … ON CONFLICT (user_id, entitlement) fails: \(error.message)")
        }
    }
}
