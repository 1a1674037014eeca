import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// Each job table's column table (`JobTables`) against the migrated schema: every declared column
/// exists in its table, and every column without a default is declared, so a migration that adds a
/// column without its table entry fails here, naming the column.
@Suite struct ColumnTableSchemaTests {
    /// What is wrong between the column tables and the database `connection` reads, one line each.
    static func problems(on connection: PostgresConnection) throws -> [String] {
        var problems: [String] = []
        for table in JobTables.all {
            let rows = try connection.query(
                """
                SELECT column_name::text AS name, is_nullable = 'YES' AS nullable, column_default IS NULL AS bare
                FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(table.name)
                ORDER BY ordinal_position
                """)
            let existing = Set(try rows.map { try $0.decode("name", as: String.self) })
            for name in table.columns where !existing.contains(name) {
                problems.append("\(table.name).\(name) is in JobTables but not in the database")
            }
            for row in rows where try row.decode("bare", as: Bool.self) {
                let name: String = try row.decode("name")
                guard !table.columns.contains(name) else { continue }
                let nullable = try row.decode("nullable", as: Bool.self) ? "" : "NOT NULL "
                problems.append("\(table.name).\(name) (\(nullable)without a default) has no entry in JobTables")
            }
        }
        return problems
    }

    @Test func everyTableMatchesTheMigratedSchema() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            #expect(try Self.problems(on: connection) == [])
        }
    }

    @Test func aColumnAddedWithoutItsEntryIsNamed() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try connection.execute("ALTER TABLE recon_transactions ADD COLUMN promotional_offer_id text NOT NULL")
            try connection.execute("ALTER TABLE recon_flags DROP COLUMN detail")
            #expect(
                try Self.problems(on: connection) == [
                    "recon_flags.detail is in JobTables but not in the database",
                    "recon_transactions.promotional_offer_id (NOT NULL without a default) has no entry in JobTables",
                ])
        }
    }
}
