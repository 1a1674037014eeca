import Foundation
import Postgres
import ReconSchema
import TestSupport
import Testing

/// `migrate --check` tests every privilege the job's statements need, for the job's role and for the
/// owners of the views and trigger functions it writes through, and prints the missing ones as one
/// GRANT script; `run` refuses on the same test before asking Apple anything (docs/integration.md,
/// "Roles and privileges").
@Suite struct PrivilegeCheckTests {
    static func check(_ role: TestRole) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(["migrate", "--check"], environment: ["DATABASE_URL": role.conninfo])
    }

    /// The script as printed: from its header to the last GRANT.
    static func script(_ stdout: String) -> String {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("-- receipt-recon: the ") }) else { return "" }
        return lines[start...].prefix { $0.hasPrefix("-- ") || $0.hasPrefix("GRANT ") }.joined(separator: "\n")
    }

    static func grants(_ stdout: String) -> [String] {
        script(stdout).split(separator: "\n").filter { $0.hasPrefix("GRANT ") }.map(String.init)
    }

    /// `migrate --check` as `role`: exit 77 with exactly `expected` in its script; the result.
    static func checkLacks(
        _ role: TestRole, _ expected: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ReceiptReconBinary.Result {
        let result = try check(role)
        #expect(result.status == 77, "\(result.output)", sourceLocation: sourceLocation)
        #expect(Set(grants(result.stdout)) == expected, "\(result.stdout)", sourceLocation: sourceLocation)
        return result
    }

    /// The four GRANTs that each cost a failed night, one at a time: all four from one check, and the
    /// printed script, run as it stands, is all the role needed.
    @Test func aJobRoleMissingFourGrantsGetsAllFourAtOnceAndTheScriptFixesThem() throws {
        try TestDatabase.with { database in
            let admin = try database.connect()
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: admin)
                try admin.executeScript(
                    """
                    REVOKE UPDATE ON entitlements FROM \(role.name);
                    REVOKE USAGE ON SEQUENCE recon_flags_id_seq, recon_corrections_id_seq FROM \(role.name);
                    REVOKE ALL ON recon_request_budget FROM \(role.name);
                    """)
                let first = try Self.checkLacks(
                    role,
                    [
                        "GRANT UPDATE ON TABLE public.entitlements TO \(role.name);",
                        "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.recon_request_budget TO \(role.name);",
                        "GRANT USAGE ON SEQUENCE public.recon_flags_id_seq TO \(role.name);",
                        "GRANT USAGE ON SEQUENCE public.recon_corrections_id_seq TO \(role.name);",
                    ])
                #expect(first.stderr.contains("lack 4 privileges"), "\(first.stderr)")

                try admin.executeScript(Self.script(first.stdout))
                let second = try Self.check(role)
                #expect(second.status == 0, "\(second.output)")
                #expect(second.stdout.contains("privileges: all held"), "\(second.stdout)")
                #expect(Self.grants(second.stdout).isEmpty)
            }
        }
    }

    /// The job writes `entitlements` through a view; the view's owner, not the job's role, lacks what
    /// the view does to its table, and the script grants it to the owner.
    @Test func aViewWhoseOwnerLacksTheBaseTableIsReportedNamingTheOwner() throws {
        try TestDatabase.with { database in
            let admin = try database.connect()
            try TestRole.with(in: database, suffix: "_owner") { owner in
                try TestRole.with(in: database) { job in
                    try admin.executeScript(
                        """
                        ALTER TABLE entitlements RENAME TO app_entitlements;
                        CREATE VIEW entitlements AS SELECT * FROM app_entitlements;
                        ALTER VIEW entitlements OWNER TO \(owner.name);
                        GRANT INSERT ON app_entitlements TO \(owner.name);
                        """)
                    try job.grantJobPrivileges(on: admin)
                    let first = try Self.check(job)
                    #expect(first.status == 77, "\(first.output)")
                    #expect(
                        Self.grants(first.stdout) == [
                            "GRANT SELECT, UPDATE ON TABLE public.app_entitlements TO \(owner.name);"
                        ], "\(first.stdout)")
                    #expect(
                        first.stdout.contains(
                            "\(owner.name) owns view public.entitlements, which reads and writes "
                                + "public.app_entitlements"), "\(first.stdout)")
                    #expect(first.stderr.contains("lack 1 privilege"), "\(first.stderr)")

                    try admin.executeScript(Self.script(first.stdout))
                    let second = try Self.check(job)
                    #expect(second.status == 0, "\(second.output)")
                }
            }
        }
    }

    /// Triggers on `entitlements`: a SECURITY DEFINER function runs as its owner, a plain one as the
    /// role whose write fires it; each lacking role is named, and after the script a night's writes
    /// go through both.
    @Test func triggerFunctionsAreCheckedAsTheRoleTheyRunAs() throws {
        try RunCommandTests.drifted { apple, database in
            let admin = try database.connect()
            try TestRole.with(in: database, suffix: "_owner") { owner in
                try TestRole.with(in: database) { job in
                    try admin.executeScript(
                        """
                        CREATE TABLE audit_definer (user_id text, entitlement text, at timestamptz DEFAULT now());
                        CREATE TABLE audit_invoker (user_id text PRIMARY KEY, n int);
                        CREATE FUNCTION copy_definer() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
                            SET search_path = pg_catalog AS $$
                        BEGIN
                            INSERT INTO public.audit_definer (user_id, entitlement) VALUES (NEW.user_id, NEW.entitlement);
                            RETURN NULL;
                        END $$;
                        ALTER FUNCTION copy_definer() OWNER TO \(owner.name);
                        CREATE FUNCTION count_invoker() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN
                            -- 'UPDATE audit_definer SET' in a comment or a string is no statement
                            INSERT INTO audit_invoker AS a VALUES (NEW.user_id, 1)
                                ON CONFLICT (user_id) DO UPDATE SET n = a.n + 1;
                            RETURN NULL;
                        END $$;
                        CREATE TRIGGER entitlements_definer AFTER INSERT OR UPDATE ON entitlements
                            FOR EACH ROW EXECUTE FUNCTION copy_definer();
                        CREATE TRIGGER entitlements_invoker AFTER INSERT OR UPDATE ON entitlements
                            FOR EACH ROW EXECUTE FUNCTION count_invoker();
                        """)
                    try job.grantJobPrivileges(on: admin)
                    let first = try Self.checkLacks(
                        job,
                        [
                            "GRANT INSERT ON TABLE public.audit_definer TO \(owner.name);",
                            "GRANT SELECT, INSERT, UPDATE ON TABLE public.audit_invoker TO \(job.name);",
                        ])
                    #expect(first.stdout.contains("as its owner \(owner.name) (SECURITY DEFINER)"), "\(first.stdout)")

                    try admin.executeScript(Self.script(first.stdout))
                    #expect(try Self.check(job).status == 0)
                    let night = try RunCommandTests.night(as: job, apple)
                    #expect(night.status != 77, "\(night.output)")
                    let copied: Int = try admin.query("SELECT count(*) AS n FROM audit_definer").first!.decode("n")
                    let counted: Int = try admin.query("SELECT count(*) AS n FROM audit_invoker").first!.decode("n")
                    #expect(copied > 0 && counted > 0, "the night's writes fired both triggers: \(night.output)")
                }
            }
        }
    }

    /// A `security_invoker` view is checked against its reader, the job's role: its table, the
    /// sequence of the table's `nextval` default (taken by whoever inserts), and a function another
    /// view calls (EXECUTE, checked against the view's reader). After the script a night writes
    /// through it.
    @Test func anInvokersViewItsDefaultsAndAViewsFunctionAreCheckedAgainstTheJobsRole() throws {
        try RunCommandTests.driftedWithJobRole { apple, admin, job in
            try admin.executeScript(
                """
                ALTER TABLE entitlements RENAME TO app_entitlements;
                ALTER TABLE app_entitlements ADD COLUMN id bigserial;
                CREATE VIEW entitlements WITH (security_invoker = true) AS
                    SELECT user_id, entitlement, active, expires_at, product_id, original_transaction_id, source,
                           updated_at
                    FROM app_entitlements;
                ALTER TABLE sandbox_testers RENAME TO app_testers;
                CREATE FUNCTION tester_id(t text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT t';
                REVOKE EXECUTE ON FUNCTION tester_id(text) FROM PUBLIC;
                CREATE VIEW sandbox_testers AS SELECT tester_id(user_id) AS user_id FROM app_testers;
                """)
            try job.grantJobPrivileges(on: admin)
            let first = try Self.checkLacks(
                job,
                [
                    "GRANT SELECT, INSERT, UPDATE ON TABLE public.app_entitlements TO \(job.name);",
                    "GRANT USAGE ON SEQUENCE public.app_entitlements_id_seq TO \(job.name);",
                    "GRANT EXECUTE ON FUNCTION public.tester_id(text) TO \(job.name);",
                ])

            try admin.executeScript(Self.script(first.stdout))
            #expect(try Self.check(job).status == 0)
            let night = try RunCommandTests.night(as: job, apple)
            #expect(night.status != 77, "\(night.output)")
            #expect(!apple.received.isEmpty)
        }
    }

    /// Row-level security is no privilege a catalogue can test: said, not judged.
    @Test func rowLevelSecurityOnAJobTableIsNoted() throws {
        try TestDatabase.with { database in
            let admin = try database.connect()
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: admin)
                try admin.execute("ALTER TABLE recon_results ENABLE ROW LEVEL SECURITY")
                let result = try Self.check(role)
                #expect(result.status == 0, "\(result.output)")
                #expect(
                    result.stdout.contains("note: row-level security is on for public.recon_results"),
                    "\(result.stdout)")
            }
        }
    }

    /// A missing privilege stops `run` before its run row and before any request to Apple.
    @Test func aRunMissingAPrivilegeExits77BeforeAnyAppleRequest() throws {
        try RunCommandTests.driftedWithJobRole { apple, admin, role in
            // Without it, a night used to fail at its first user's lock, after asking Apple.
            try role.grantJobPrivileges(on: admin, except: ("entitlements", "UPDATE"))
            try RunCommandTests.expectStoppedBeforeItStarted(
                try RunCommandTests.night(as: role, apple),
                grant: "GRANT UPDATE ON TABLE public.entitlements TO \(role.name);", admin, apple)
        }
    }

    /// `revert` writes entitlements as a night does: the same test, before its run row.
    @Test func aRevertMissingAPrivilegeExits77BeforeItsRow() throws {
        try RunCommandTests.drifted { apple, database in
            let night = try RunCommandTests.run(database, apple)
            let admin = try database.connect()
            let runID: Int64 = try admin.query("SELECT max(id) AS id FROM recon_runs").first!.decode("id")
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: admin, except: ("recon_corrections_id_seq", "USAGE"))
                let result = try ReceiptReconBinary.run(
                    ["revert", "--run", String(runID)], environment: ["DATABASE_URL": role.conninfo])
                #expect(result.status == 77, "\(night.output)\n\(result.output)")
                #expect(
                    result.stderr.contains("GRANT USAGE ON SEQUENCE public.recon_corrections_id_seq TO \(role.name);"),
                    "\(result.stderr)")
                let runs: Int = try admin.query("SELECT count(*) AS n FROM recon_runs").first!.decode("n")
                #expect(runs == 1)
            }
        }
    }

    /// `migrate` as the nightly role: 77 naming who can migrate, changing nothing; never 70.
    @Test func migrateAsTheJobRoleIs77WithTheWayOut() throws {
        try TestDatabase.with { database in
            let admin = try database.connect()
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: admin)
                let migrated = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": role.conninfo])
                #expect(migrated.status == 77, "\(migrated.output)")
                #expect(migrated.stderr.contains("may not create tables in schema public"), "\(migrated.stderr)")
                #expect(migrated.stderr.contains("run 'receipt-recon migrate' as"), "\(migrated.stderr)")
                #expect(migrated.stderr.contains("nothing is pending"), "\(migrated.stderr)")
            }
        }
        // A schema the role may not use, and none to create in (PostgreSQL's 3F000).
        try TestDatabase.with(migrated: false) { database in
            let admin = try database.connect()
            try admin.execute("CREATE SCHEMA recon")
            try TestRole.with(in: database) { role in
                let migrated = try ReceiptReconBinary.run(
                    ["migrate"], environment: ["DATABASE_URL": role.conninfo + " options=-csearch_path=recon"])
                #expect(migrated.status == 77, "\(migrated.output)")
                #expect(migrated.stderr.contains("may not use schema recon (no USAGE)"), "\(migrated.stderr)")
                #expect(migrated.stderr.contains("GRANT USAGE, CREATE ON SCHEMA recon TO \(role.name)"))
                let tables: Int = try admin.query(
                    "SELECT count(*) AS n FROM pg_class WHERE relnamespace = 'recon'::regnamespace"
                ).first!.decode("n")
                #expect(tables == 0)
            }
        }
    }
}
