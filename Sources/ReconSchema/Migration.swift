/// One file of `SQL/`, embedded into the binary at build time (see the EmbedMigrations plugin).
public struct Migration: Sendable, Equatable {
    /// The `NNNN` prefix of the file name; recorded in `recon_schema_migrations.version`.
    public let version: String
    /// The rest of the file name, `verb_object`.
    public let name: String
    public let sql: String

    public init(version: String, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// This migration creates the application's tables that are missing (`SQL/0001`): `migrate` asks
    /// before applying it into a schema that holds an app's other tables.
    public var createsApplicationTables: Bool { name == "create_application_tables" }

    /// Every migration this build knows, in the order they apply.
    public static var all: [Migration] { embedded }
}
