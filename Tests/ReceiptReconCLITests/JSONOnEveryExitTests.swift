import Foundation
import Postgres
import TestSupport
import Testing

/// `run --json` and `verify-user --json` print exactly one JSON object on stdout on every exit that got
/// past parsing the arguments: with `status`, `exitCode` (the process's own) and `reason`, `runID` when
/// a run row exists. Errors still go to stderr as one line. Usage errors (64) print no JSON.
@Suite struct JSONOnEveryExitTests {
    /// The one JSON object stdout holds; fails the test when stdout holds anything else.
    static func object(_ result: ReceiptReconBinary.Result, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [String: Any]
    {
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: true)
        try #require(
            lines.count == 1, "stdout: \(result.stdout)\nstderr: \(result.stderr)", sourceLocation: sourceLocation)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any],
            sourceLocation: sourceLocation)
    }

    /// Checks the object against the process's exit and returns it.
    @discardableResult
    /// - Parameter errorLine: the run ended by an error, reported on stderr (a run that stopped itself
    ///   logs its reason instead).
    static func expectFailure(
        _ result: ReceiptReconBinary.Result, exit: Int32, status: String, errorLine: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        #expect(result.status == exit, "\(result.output)", sourceLocation: sourceLocation)
        let object = try Self.object(result, sourceLocation: sourceLocation)
        #expect(object["exitCode"] as? Int == Int(exit), sourceLocation: sourceLocation)
        #expect(object["status"] as? String == status, sourceLocation: sourceLocation)
        // CONTRACT §9: in every summary; a run that ended this way recorded no refund of its own here.
        #expect((object["refundedAmount"] as? [Any])?.isEmpty == true, sourceLocation: sourceLocation)
        let reason = try #require(object["reason"] as? String, sourceLocation: sourceLocation)
        #expect(!reason.isEmpty, sourceLocation: sourceLocation)
        guard errorLine else { return object }
        // The same reason, once, on stderr.
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("receipt-recon") }
        #expect(errors.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(errors.first?.contains(reason) == true, "\(result.stderr)", sourceLocation: sourceLocation)
        return object
    }

    @Test func anUnreachableDatabasePrintsJSONAndExits69() throws {
        let port = try LoopbackSocket.freePort()
        let environment = ["DATABASE_URL": "host=127.0.0.1 port=\(port) dbname=recon user=recon connect_timeout=5"]
        let run = try ReceiptReconBinary.run(["run", "--json", "--shard", "1/4"], environment: environment)
        let object = try Self.expectFailure(run, exit: 69, status: "failed")
        #expect(object["runID"] == nil, "no run row exists")
        #expect(object["kind"] as? String == "nightly")
        #expect(object["shard"] as? String == "1/4")
        #expect(object["dryRun"] as? Bool == false)

        let user = try ReceiptReconBinary.run(
            ["verify-user", "u-1", "--json", "--dry-run", "--as-of", "2026-11-01T00:00:00Z"], environment: environment)
        let userObject = try Self.expectFailure(user, exit: 69, status: "failed")
        #expect(userObject["kind"] as? String == "user")
        #expect(userObject["dryRun"] as? Bool == true)
        #expect(userObject["asOf"] as? String == "2026-11-01T00:00:00Z")
    }

    @Test func aHeldNightlyLockPrintsJSONAndExits75() throws {
        try RunCommandTests.drifted { apple, database in
            let holder = try database.connect()
            #expect(try holder.tryAdvisoryLock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))
            let result = try RunCommandTests.run(database, apple, ["--json"])
            let object = try Self.expectFailure(result, exit: 75, status: "skipped")
            #expect((object["reason"] as? String)?.contains("lock") == true)
            #expect(object["runID"] == nil)
        }
    }

    @Test func configurationErrorsPrintJSONAndExit78() throws {
        let missingSecret = try ReceiptReconBinary.run(
            ["run", "--json", "--shared-secret-file", "/nonexistent/secret"])
        let object = try Self.expectFailure(missingSecret, exit: 78, status: "failed")
        #expect((object["reason"] as? String)?.contains("/nonexistent/secret") == true)

        let badVariable = try ReceiptReconBinary.run(["run", "--json"], environment: ["RECON_ENVIRONMENT": "staging"])
        try Self.expectFailure(badVariable, exit: 78, status: "failed")
        let badClient = try ReceiptReconBinary.run(
            ["verify-user", "u-1", "--json"], environment: ["RECON_HTTP_CLIENT": "wget"])
        try Self.expectFailure(badClient, exit: 78, status: "failed")

        try TestDatabase.with(migrated: false) { database in
            let result = try ReceiptReconBinary.run(
                ["run", "--json"], environment: ["DATABASE_URL": database.conninfo])
            let object = try Self.expectFailure(result, exit: 78, status: "failed")
            #expect((object["reason"] as? String)?.contains("receipt-recon migrate") == true)
        }
    }

    @Test func appleRejectingTheSharedSecretPrintsTheRunsJSONWithItsReason() throws {
        let apple = try ScriptedAppleServer()
        apple.answerEverythingElse(with: .status(21004))
        try TestDatabase.with { database in
            try RunCommandTests.seedMany(database, users: 150)
            let result = try RunCommandTests.run(database, apple, ["--json", "--concurrency", "4"])
            let object = try Self.expectFailure(result, exit: 78, status: "aborted", errorLine: false)
            let runID: Int64 = try database.connect().query("SELECT id FROM recon_runs").first!.decode("id")
            #expect(object["runID"] as? Int == Int(runID))
            #expect(object["abortReason"] as? String == object["reason"] as? String)
            #expect(object["corrections"] as? [String: Any] != nil, "the usual summary fields are there")
        }
    }

    @Test func aRunAnErrorEndsAfterItStartedPrintsItsIDAndIsRecordedFailed() throws {
        try RunCommandTests.drifted { apple, database in
            let db = try database.connect()
            // The products view computes `entitlement` with SQL built at run time, which no check before
            // the start can read: the start reads product ids and kinds, then the run cannot load the
            // entitlements (77).
            try db.executeScript(
                """
                ALTER TABLE products RENAME TO app_products;
                CREATE TABLE secret (x int);
                CREATE FUNCTION unlocks(e text) RETURNS text LANGUAGE plpgsql STABLE AS $$
                BEGIN EXECUTE 'SELECT count(*) FROM secret'; RETURN e; END $$;
                CREATE VIEW products AS
                    SELECT product_id, kind, unlocks(entitlement) AS entitlement, duration FROM app_products;
                """)
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: db)
                let result = try ReceiptReconBinary.run(
                    ["run", "--json", "--older-than", "0", "--as-of", RunCommandTests.asOf],
                    environment: apple.environment.merging(["DATABASE_URL": role.conninfo]) { $1 })
                let object = try Self.expectFailure(result, exit: 77, status: "failed")
                let row = try db.query("SELECT id, status, exit_code FROM recon_runs").first!
                #expect(object["runID"] as? Int == Int(try row.decode("id", as: Int64.self)))
                #expect(
                    (object["reason"] as? String)?.contains("permission denied for table secret") == true,
                    "\(object)")
                #expect(try row.decode("status") == "failed")
                #expect(try row.decode("exit_code", as: Int?.self) == 77)
            }
        }
    }

    @Test func verifyUserForAnUnknownUserPrintsJSONAndExits65() throws {
        try RunCommandTests.drifted { apple, database in
            let result = try ReceiptReconBinary.run(
                ["verify-user", "nobody", "--json"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            try Self.expectFailure(result, exit: 65, status: "failed")
        }
    }

    @Test(arguments: [["run", "--json", "--rate", "fast"], ["run", "--json", "--bogus"], ["verify-user", "--json"]])
    func usageErrorsPrintNoJSON(arguments: [String]) throws {
        let result = try ReceiptReconBinary.run(arguments)
        #expect(result.status == 64, "\(result.output)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.isEmpty)
    }
}
