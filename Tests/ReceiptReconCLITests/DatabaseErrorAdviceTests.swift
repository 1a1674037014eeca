import Postgres
import ReconSchema
import Reconciliation
import Testing

/// The words and exit code a database error ends a command with (`DatabaseErrorAdvice`,
/// `ExitCode.forDatabase`): the GRANT to run for a missing privilege, the way to the check for a
/// table of another shape.
@Suite struct DatabaseErrorAdviceTests {
    static func server(_ state: String, _ message: String, role: String = "recon_job") -> PostgresError {
        PostgresError(kind: .server, sqlState: state, message: message, role: role)
    }

    @Test(arguments: [
        ("permission denied for table entitlements", "GRANT SELECT, INSERT, UPDATE ON entitlements TO recon_job"),
        ("permission denied for view products", "GRANT SELECT ON products TO recon_job"),
        (
            "permission denied for table recon_run_transactions",
            "GRANT SELECT, INSERT, DELETE ON recon_run_transactions TO recon_job"
        ),
        (
            "permission denied for sequence recon_flags_id_seq",
            "GRANT USAGE ON SEQUENCE recon_flags_id_seq TO recon_job"
        ),
        ("permission denied for schema recon", "GRANT USAGE ON SCHEMA recon TO recon_job"),
        ("permission denied for table invoices", "grant role recon_job the privileges docs/integration.md lists"),
        (
            "new row violates row-level security policy for table \"entitlements\"",
            "a row-level security policy on entitlements refuses the job's rows"
        ),
        ("must be owner of table recon_runs", "run 'receipt-recon migrate' as that role (recon_owner"),
    ])
    func aMissingPrivilegeIs77NamingTheGrant(message: String, advice: String) {
        let error = Self.server("42501", message)
        #expect(ExitCode.forDatabase(error) == .noPermission)
        #expect(DatabaseErrorAdvice.describe(error).contains(advice), "\(DatabaseErrorAdvice.describe(error))")
    }

    @Test func aRoleNameThatIsNotAPlainIdentifierIsQuoted() {
        let error = Self.server("42501", "permission denied for table receipts", role: "Job \"Nightly\"")
        #expect(DatabaseErrorAdvice.describe(error).contains(#"GRANT SELECT ON receipts TO "Job ""Nightly""""#))
    }

    /// Only migrate creates; a 3F000 (no schema to create in) is a role that may not, never a 70.
    @Test func noSchemaToCreateInIs77NamingTheOwner() {
        let error = Self.server("3F000", "no schema has been selected to create in")
        #expect(ExitCode.forDatabase(error) == .noPermission)
        #expect(DatabaseErrorAdvice.describe(error).contains("run 'receipt-recon migrate' as that role"))
    }

    /// A schema refused to a job's statement lacks USAGE, for the session's role or for an owner the
    /// error does not name: the advice says both.
    @Test func aSchemaRefusedToTheJobNamesUsageAndTheOwnersItMayBe() {
        let advice = DatabaseErrorAdvice.describe(Self.server("42501", "permission denied for schema app"))
        #expect(advice.contains("GRANT USAGE ON SCHEMA app TO recon_job"))
        #expect(advice.contains("SECURITY DEFINER trigger function"))
    }

    @Test(arguments: ["42703", "42883", "42P01", "42P10", "42804", "0A000"])
    func aTableOfAnotherShapeIs78PointingAtTheCheck(state: String) {
        let error = Self.server(state, "column \"product_id\" does not exist")
        #expect(ExitCode.forDatabase(error) == .configuration)
        #expect(DatabaseErrorAdvice.describe(error).contains("'receipt-recon migrate --check'"))
        #expect(DatabaseErrorAdvice.describe(error).contains("column \"product_id\" does not exist"))
    }

    @Test(arguments: [("23505", ExitCode.internalError), ("57P01", .unavailable), ("25006", .unavailable)])
    func otherErrorsKeepTheirCodes(state: String, code: ExitCode) {
        let error = Self.server(state, "something")
        #expect(ExitCode.forDatabase(error) == code)
        #expect(DatabaseErrorAdvice.advice(for: error) == nil)
    }
}
