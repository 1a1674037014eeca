import Foundation
import ReconSchema
import Testing

/// The pure parts of the privilege check: what a trigger function's body uses (`FunctionBodyScan`),
/// the GRANT script (`GrantScript`), and why a role cannot migrate (`MigrationRights`).
@Suite struct PrivilegeRulesTests {
    typealias Access = FunctionBodyScan.Access

    @Test(arguments: [
        (
            "INSERT INTO public.audit (a) VALUES (NEW.a)",
            [Access(schema: "public", name: "audit", privileges: ["INSERT"])]
        ),
        (
            "INSERT INTO \"App\".Features AS f VALUES (1) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v",
            [Access(schema: "App", name: "features", privileges: ["INSERT", "UPDATE", "SELECT"])]
        ),
        (
            "UPDATE ONLY sink s SET v = NEW.v WHERE k = NEW.k",
            [Access(schema: nil, name: "sink", privileges: ["UPDATE", "SELECT"])]
        ),
        ("UPDATE sink SET v = 1", [Access(schema: nil, name: "sink", privileges: ["UPDATE"])]),
        (
            "DELETE FROM recon.entitlements WHERE user_id = OLD.id::text",
            [Access(schema: "recon", name: "entitlements", privileges: ["DELETE", "SELECT"])]
        ),
        (
            "SELECT count(*) INTO n FROM a JOIN b ON a.id = b.id WHERE x IS DISTINCT FROM y",
            [
                Access(schema: nil, name: "a", privileges: ["SELECT"]),
                Access(schema: nil, name: "b", privileges: ["SELECT"]),
            ]
        ),
        (
            "PERFORM 1 FROM unnest(xs); x := extract(epoch FROM NEW.until)",
            [Access(schema: "new", name: "until", privileges: ["SELECT"])]
        ),
        ("-- UPDATE t SET a = 1\nRAISE NOTICE 'DELETE FROM t'; /* INSERT INTO t */ RETURN NULL", []),
        (
            "SELECT 1 FOR UPDATE; INSERT INTO x SELECT * FROM y",
            [
                Access(schema: nil, name: "x", privileges: ["INSERT"]),
                Access(schema: nil, name: "y", privileges: ["SELECT"]),
            ]
        ),
    ])
    func aBodyScanFindsWhatEachStatementUses(source: String, expected: [Access]) {
        let scan = FunctionBodyScan(source)
        #expect(scan.accesses == expected, "\(scan.accesses)")
        #expect(!scan.dynamic)
    }

    @Test(arguments: [
        ("EXECUTE format('INSERT INTO %I VALUES (1)', t)", true),
        ("CREATE TRIGGER x AFTER INSERT ON t EXECUTE FUNCTION f()", false),
    ])
    func sqlBuiltAtRunTimeIsSaidToBeUnread(source: String, dynamic: Bool) {
        #expect(FunctionBodyScan(source).dynamic == dynamic)
    }

    @Test func theScriptMergesARolesNeedsOnOneObjectAndSaysWhy() {
        let needs = [
            PrivilegeNeed(
                role: "recon_job", kind: .table, object: "recon.entitlements", privileges: ["UPDATE"], reason: "a"),
            PrivilegeNeed(
                role: "recon_owner", kind: .table, object: "public.features", privileges: ["UPDATE"], reason: "b"),
            PrivilegeNeed(
                role: "recon_job", kind: .table, object: "recon.entitlements", privileges: ["SELECT"], reason: "c"),
            PrivilegeNeed(role: "Job X", kind: .sequence, object: "recon.s", privileges: ["USAGE"], reason: "d"),
        ]
        let lines = GrantScript.script(needs).split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("-- receipt-recon: the 3 GRANTs the job lacks") == true)
        #expect(
            Array(lines.dropFirst()) == [
                "-- a", "GRANT SELECT, UPDATE ON TABLE recon.entitlements TO recon_job;",
                "-- b", "GRANT UPDATE ON TABLE public.features TO recon_owner;",
                "-- d", "GRANT USAGE ON SEQUENCE recon.s TO \"Job X\";",
            ])
        #expect(GrantScript.oneLine(needs).components(separatedBy: "; GRANT").count == 3)
    }

    static func rights(
        target: String? = "recon", mayCreate: Bool = true, foreign: [(table: String, owner: String)] = [],
        path: [MigrationRights.NamedSchema] = [.init(name: "recon", exists: true, usable: true, owner: "recon_owner")]
    ) -> MigrationRights {
        MigrationRights(
            role: "recon_job", searchPath: path, target: target, targetOwner: target == nil ? nil : "recon_owner",
            mayCreate: mayCreate, tablesOwnedByOthers: foreign)
    }

    @Test(arguments: [
        (rights(), nil),
        (
            rights(mayCreate: false),
            "may not create tables in schema recon (it has USAGE, not CREATE) (nothing is pending: the database is "
                + "up to date): run 'receipt-recon migrate' as recon_owner"
        ),
        (
            rights(foreign: [("recon_runs", "recon_owner"), ("recon_flags", "recon_owner")]),
            "does not own the job's tables in schema recon (recon_runs and 1 more belong to recon_owner)"
        ),
        (
            rights(
                target: nil, path: [.init(name: "recon", exists: true, usable: false, owner: "recon_owner")]),
            "may not use schema recon (no USAGE)"
        ),
        (
            rights(target: nil, path: [.init(name: "recon", exists: false, usable: false, owner: nil)]),
            "no schema on role recon_job's search path (recon) exists"
        ),
    ])
    func aRoleThatCannotMigrateIsToldWhyAndWhoCan(rights: MigrationRights, expected: String?) {
        let refusal = rights.refusal(pending: 0)
        if let expected {
            #expect(refusal?.contains(expected) == true, "\(refusal ?? "nil")")
            #expect(refusal?.contains("'receipt-recon migrate") == true)
        } else {
            #expect(refusal == nil)
        }
    }

    @Test func pendingMigrationsAreCountedInTheRefusal() {
        #expect(Self.rights(mayCreate: false).refusal(pending: 2)?.contains("(2 migrations pending)") == true)
    }
}
