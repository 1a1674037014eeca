import Postgres
import ReconSchema
import Reconciliation

/// Where `simulator seed` writes: the contract's application tables, never an app's own tables behind a
/// mapping's views.
enum StagingSchema {
    static let applicationTables = ["products", "receipts", "entitlements", "sandbox_testers"]

    /// `--schema NAME`: the schema (created if missing) holding the contract's four application tables,
    /// first and only on the session's search path, so the seeder's unqualified names land there.
    static func prepare(_ schema: String, on connection: PostgresConnection) throws {
        let name = MappingSQL.quoted(schema)
        guard let tables = Migrator().migrations.first(where: \.createsApplicationTables) else {
            throw CommandError(.internalError, "this build has no migration creating the application tables")
        }
        try connection.executeScript("CREATE SCHEMA IF NOT EXISTS \(name); SET search_path = \(name);")
        try connection.executeScript(tables.sql)
    }

    /// A database whose application tables are views (mapped onto an app's own tables): seeding there would
    /// write into the app's tables, or fail on a view; refused, 78, with the way out.
    static func refuseMappedTables(on connection: PostgresConnection) throws {
        for table in applicationTables {
            let rows = try connection.query(
                """
                SELECT c.relkind::text AS kind, n.nspname::text || '.' || c.relname::text AS name
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.oid = to_regclass(\(table))
                """)
            guard let row = rows.first, try row.decode("kind", as: String.self) == "v" else { continue }
            let name: String = try row.decode("name")
            throw CommandError(
                .configuration,
                "simulator seed writes the contract's tables, and \(table) here is the view \(name): this "
                    + "database is mapped onto an app's own tables, which a seed must not write. Seed a staging "
                    + "schema instead: 'receipt-recon simulator seed --schema NAME …' creates the contract's "
                    + "tables in NAME (docs/simulator.md, \"Rehearsing your own mapping\"), or seed a database "
                    + "of its own")
        }
    }
}
