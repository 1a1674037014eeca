import Postgres
import TestSupport
import Testing

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

    /// What a night stopped for a missing privilege shows: exit 77, `grant` on stderr (the line to run for
    /// `role`), no run row and no request to Apple.
    static func expectStoppedBeforeItStarted(
        _ result: ReceiptReconBinary.Result, grant: String, _ admin: PostgresConnection, _ apple: ScriptedAppleServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(result.status == 77, "\(result.output)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(grant), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(apple.received.isEmpty, "\(apple.endpoints)", sourceLocation: sourceLocation)
        let runs: Int = try admin.query("SELECT count(*) AS n FROM recon_runs").first!.decode("n")
        #expect(runs == 0, sourceLocation: sourceLocation)
    }

    /// A night connected as `role`: every user due, one attempt each.
    static func night(as role: TestRole, _ apple: ScriptedAppleServer) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(
            ["run", "--older-than", "0", "--as-of", asOf, "--max-attempts", "1"],
            environment: apple.environment.merging(["DATABASE_URL": role.conninfo]) { $1 })
    }
}
