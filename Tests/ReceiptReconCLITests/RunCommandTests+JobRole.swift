import Postgres
import TestSupport

extension RunCommandTests {
    /// The arrange block of the privilege tests: `drifted`, with a connection as the database's owner and a
    /// fresh job role (granted nothing yet), handed to `body`.
    static func driftedWithJobRole<T>(
        _ body: (ScriptedAppleServer, PostgresConnection, TestRole) throws -> T
    ) throws -> T {
        try drifted { apple, database in
            let admin = try database.connect()
            return try TestRole.with(in: database) { role in try body(apple, admin, role) }
        }
    }

    /// A night connected as `role`: every user due, one attempt each.
    static func night(as role: TestRole, _ apple: ScriptedAppleServer) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(
            ["run", "--older-than", "0", "--as-of", asOf, "--max-attempts", "1"],
            environment: apple.environment.merging(["DATABASE_URL": role.conninfo]) { $1 })
    }
}
