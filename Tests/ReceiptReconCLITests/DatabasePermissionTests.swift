import Foundation
import Postgres
import ReconSchema
import TestSupport
import Testing

/// A role short of one privilege: exit 77 (EX_NOPERM) with one line naming the object and the GRANT
/// to run: `run` and `verify-user` before they start (`PrivilegeCheckTests`), `report` and `export`
/// when they meet it.
@Suite struct DatabasePermissionTests {
    /// Without INSERT on entitlements the run would get as far as its first grant: it is stopped before
    /// it starts instead, naming the GRANT, with no run row and nothing changed.
    @Test func aRunWithoutInsertOnEntitlementsStopsWith77BeforeItStarts() throws {
        try RunCommandTests.driftedWithJobRole { apple, admin, role in
            try role.grantJobPrivileges(on: admin, except: ("entitlements", "INSERT"))
            let before = try RunCommandTests.entitlementsDump(admin)
            try RunCommandTests.expectStoppedBeforeItStarted(
                try RunCommandTests.night(as: role, apple),
                grant: "GRANT INSERT ON TABLE public.entitlements TO \(role.name);", admin, apple)
            #expect(try RunCommandTests.entitlementsDump(admin) == before)
        }
    }

    /// SELECT … FOR UPDATE needs UPDATE: even a dry run of one user says so.
    @Test func verifyUserWithoutUpdateOnEntitlementsIs77() throws {
        try RunCommandTests.driftedWithJobRole { apple, admin, role in
            try role.grantJobPrivileges(on: admin, except: ("entitlements", "UPDATE"))
            let result = try ReceiptReconBinary.run(
                ["verify-user", "u-grant", "--dry-run"],
                environment: apple.environment.merging(["DATABASE_URL": role.conninfo]) { $1 })
            #expect(result.status == 77, "\(result.output)")
            #expect(
                result.stderr.contains("GRANT UPDATE ON TABLE public.entitlements TO \(role.name);"),
                "\(result.stderr)")
        }
    }

    /// Reading only: report and export name what they lack the same way.
    @Test func reportAndExportWithoutSelectAre77() throws {
        try TestDatabase.with { database in
            let admin = try database.connect()
            try admin.execute(
                "INSERT INTO recon_runs (kind, status, dry_run, as_of, summary) VALUES ('nightly', 'completed', false, now(), '{}')"
            )
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: admin, except: ("recon_corrections", "SELECT"))
                let export = try ReceiptReconBinary.run(
                    ["export", "corrections", "--from", "2026-01-01", "--to", "2026-02-01"],
                    environment: ["DATABASE_URL": role.conninfo])
                #expect(export.status == 77, "\(export.output)")
                #expect(export.stderr.contains("GRANT SELECT, INSERT ON recon_corrections TO \(role.name)"))

                try admin.execute(
                    PostgresQuery(unsafeSQL: "REVOKE SELECT ON recon_schema_migrations FROM \(role.name)"))
                let report = try ReceiptReconBinary.run(["report"], environment: ["DATABASE_URL": role.conninfo])
                #expect(report.status == 77, "\(report.output)")
                #expect(report.stderr.contains("GRANT SELECT ON recon_schema_migrations TO \(role.name)"))
            }
        }
    }

    /// The job's tables in a schema the role may not use: the search path skips it silently, so
    /// without a look at the catalogue this would read as "not migrated".
    @Test func aSchemaTheRoleMayNotUseIs77NamingGrantUsage() throws {
        try TestDatabase.with(migrated: false) { database in
            let admin = try database.connect()
            try admin.executeScript("CREATE SCHEMA recon; SET search_path = recon;")
            _ = try Migrator().apply(on: admin)
            try TestRole.with(in: database) { role in
                let result = try ReceiptReconBinary.run(
                    ["report"], environment: ["DATABASE_URL": role.conninfo + " options=-csearch_path=recon"])
                #expect(result.status == 77, "\(result.output)")
                #expect(result.stderr.contains("GRANT USAGE ON SCHEMA recon TO \(role.name)"), "\(result.stderr)")
            }
        }
    }

    /// `--help` of every command that touches the database lists 77.
    @Test(arguments: ["migrate", "run", "verify-user", "report", "export", "revert", "demo"])
    func helpListsExit77(command: String) throws {
        let result = try ReceiptReconBinary.run([command, "--help"])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains("  77   permission denied: the database role lacks a privilege"), "\(result.stdout)")
    }
}
