import Postgres
import ReconSchema

/// A login role for one test. Roles belong to the whole server, not to a database, so each test's
/// role is named after its database and dropped when the test ends.
public struct TestRole: Sendable {
    public let name: String
    /// The test database's conninfo, logging in as this role.
    public let conninfo: String

    /// Creates a role (no privileges of its own), runs `body`, then drops the role. `suffix` names a second
    /// role of the same test apart from the first.
    public static func with<T>(in database: TestDatabase, suffix: String = "job", _ body: (TestRole) throws -> T)
        throws -> T
    {
        let name = database.name + "_" + suffix
        let admin = try database.connect()
        try admin.execute(PostgresQuery(unsafeSQL: "CREATE ROLE \(name) LOGIN"))
        defer {
            _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP OWNED BY \(name)"))
            _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP ROLE \(name)"))
        }
        // libpq keeps the last of a repeated keyword.
        return try body(TestRole(name: name, conninfo: database.conninfo + " user=\(name)"))
    }

    /// Grants this role what the nightly job needs (`JobPrivileges`), on the tables of `schema`, except
    /// `except` (table and privilege).
    public func grantJobPrivileges(
        on connection: PostgresConnection, schema: String = "public", except: (table: String, privilege: String)? = nil
    ) throws {
        try connection.execute(PostgresQuery(unsafeSQL: "GRANT USAGE ON SCHEMA \(schema) TO \(name)"))
        for (table, privileges) in JobPrivileges.tables {
            let granted = privileges.filter { !(except?.table == table && except?.privilege == $0) }
            guard !granted.isEmpty else { continue }
            try connection.execute(
                PostgresQuery(
                    unsafeSQL: "GRANT \(granted.joined(separator: ", ")) ON \(schema).\(table) TO \(name)"))
        }
        for sequence in JobPrivileges.sequences where except?.table != sequence {
            try connection.execute(PostgresQuery(unsafeSQL: "GRANT USAGE ON SEQUENCE \(schema).\(sequence) TO \(name)"))
        }
    }
}
