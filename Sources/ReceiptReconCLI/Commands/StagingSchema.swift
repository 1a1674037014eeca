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
        let relations = try ApplicationSchemaCatalog.relations(applicationTables, on: connection)
        for table in applicationTables {
            guard let relation = relations[table], relation.kind == .view else { continue }
            let name = relation.qualifiedName
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
