import Foundation
import Postgres
import TestSupport
import Testing

/// `revert --run ID` through the built binary (CONTRACT §6, "Undo"): a real night over RunCommandTests'
/// drifted world (grant, revokes, extend, shorten) against a loopback Apple, then its undo.
@Suite struct RevertCommandTests {
    typealias P = ScriptedAppleServer.Purchase

    /// RunCommandTests' world, plus a user whose inactive row (with an expiry of its own) the night grants
    /// again: its revert must put that expiry back, not just the flag.
    static func seed(_ database: TestDatabase, _ apple: ScriptedAppleServer) throws {
        try RunCommandTests.seed(database, apple)
        let db = try database.connect()
        try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES ('u-regrant', 'UkVHUkFOVA==')")
        try db.execute(
            """
            INSERT INTO entitlements (user_id, entitlement, active, expires_at)
            VALUES ('u-regrant', 'pro', false, '2026-01-02 03:04:05.678901+00')
            """)
        apple.answer(
            "UkVHUkFOVA==",
            with: .valid([
                P(
                    product: "lifetime", transactionID: "t7", originalTransactionID: "t7",
                    purchased: RunCommandTests.day(-5))
            ]))
    }

    /// The night's corrections: RunCommandTests' six and the re-grant.
    static let nightCorrections = RunCommandTests.expected.union(["u-regrant pro grant"])

    /// Every entitlement row as `user/entitlement` → `active expires_at` (the epoch to the microsecond,
    /// `never` for NULL) and source: exact, whatever the session's time zone.
    static func states(_ db: PostgresConnection) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try db.query(
                """
                SELECT user_id || '/' || entitlement AS k,
                       active::text || ' ' || coalesce(extract(epoch FROM expires_at)::text, 'never') || ' ' || source AS v
                FROM entitlements
                """
            ).map { (try $0.decode("k", as: String.self), try $0.decode("v", as: String.self)) })
    }

    /// The rows whole, `updated_at` included: what "changes nothing" is checked against.
    static func rows(_ db: PostgresConnection) throws -> [String] {
        try RunCommandTests.entitlementsDump(db)
    }

    static func revert(_ database: TestDatabase, _ arguments: [String]) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(["revert"] + arguments, environment: ["DATABASE_URL": database.conninfo])
    }

    static func object(_ result: ReceiptReconBinary.Result) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.output)")
    }

    static func list(_ object: [String: Any], _ key: String) -> [[String: Any]] {
        object[key] as? [[String: Any]] ?? []
    }

    /// A seeded world after one real night (run 1) that changed all seven entitlements, and the states
    /// before the night.
    static func afterANight(_ body: (TestDatabase, ScriptedAppleServer, [String: String]) throws -> Void) throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            try Self.seed(database, apple)
            let db = try database.connect()
            let before = try Self.states(db)
            let night = try RunCommandTests.run(database, apple)
            #expect(night.status == 0, "\(night.output)")
            try #require(try RunCommandTests.corrections(db, run: 1, applied: true) == Self.nightCorrections)
            try body(database, apple, before)
        }
    }

    @Test func restoresEveryEntitlementExactlyAndASecondRevertChangesNothing() throws {
        try Self.afterANight { database, _, before in
            let db = try database.connect()
            let result = try Self.revert(database, ["--run", "1", "--json"])
            #expect(result.status == 0, "\(result.output)")
            let object = try Self.object(result)
            #expect(object["status"] as? String == "completed")
            #expect(object["exitCode"] as? Int == 0)
            #expect(object["runID"] as? Int == 2 && object["revertedRunID"] as? Int == 1)
            #expect(object["dryRun"] as? Bool == false)
            #expect(Self.list(object, "restored").count == 7)
            #expect(Self.list(object, "leftAlone").isEmpty)
            #expect((object["reason"] as? String)?.contains("restored 7 entitlements changed by run 1") == true)

            // Every row that existed before the night is back: active and expires_at to the microsecond.
            let after = try Self.states(db)
            for (key, state) in before { #expect(after[key] == state, "\(key)") }
            #expect(before["u-regrant/pro"] == "false 1767323045.678901 app_store")
            #expect(before["u-revoke/premium"]?.hasPrefix("true ") == true)
            // The row the night created (a grant with no row before) holds no access any more.
            #expect(before["u-grant/pro"] == nil)
            #expect(after["u-grant/pro"] == "false never app_store")

            // The revert is a run of its own, whose corrections undo the night's one by one.
            let run = try #require(
                try db.query(
                    "SELECT kind, status, dry_run, reverts_run_id, corrections, exit_code FROM recon_runs WHERE id = 2"
                ).first)
            #expect(try run.decode("kind", as: String.self) == "revert")
            #expect(try run.decode("status", as: String.self) == "completed")
            #expect(try run.decode("dry_run", as: Bool.self) == false)
            #expect(try run.decode("reverts_run_id", as: Int64?.self) == 1)
            #expect(try run.decode("corrections", as: Int.self) == 7)
            #expect(try run.decode("exit_code", as: Int?.self) == 0)
            let pairs = try db.query(
                """
                SELECT rv.user_id || ' ' || rv.entitlement || ' ' || rv.action AS r, rv.applied,
                       rv.before_active IS NOT DISTINCT FROM c.after_active
                         AND rv.before_expires_at IS NOT DISTINCT FROM c.after_expires_at AS from_night_after,
                       (c.before_active IS NULL AND NOT rv.after_active)
                         OR (rv.after_active = c.before_active
                             AND rv.after_expires_at IS NOT DISTINCT FROM c.before_expires_at) AS to_night_before,
                       rv.evidence->>'rule' AS rule, (rv.evidence->>'reverts_run_id')::bigint AS ev_run,
                       (rv.evidence->>'reverts_correction_id')::bigint = c.id AS ev_id,
                       rv.evidence->>'reverts_reason' = c.reason AS ev_reason
                FROM recon_corrections rv JOIN recon_corrections c ON c.id = rv.reverts_correction_id
                WHERE rv.run_id = 2 AND rv.reason = 'reverted' AND c.run_id = 1
                """)
            #expect(pairs.count == 7)
            #expect(
                Set(try pairs.map { try $0.decode("r", as: String.self) }) == [
                    "u-grant pro revoke", "u-regrant pro revoke", "u-revoke premium grant", "u-refund pro grant",
                    "u-deleted pro grant", "u-extend premium shorten", "u-shorten premium extend",
                ])
            for row in pairs {
                #expect(try row.decode("applied", as: Bool.self))
                #expect(try row.decode("from_night_after", as: Bool.self))
                #expect(try row.decode("to_night_before", as: Bool.self))
                #expect(try row.decode("rule", as: String?.self) == "reverted")
                #expect(try row.decode("ev_run", as: Int64?.self) == 1)
                #expect(try row.decode("ev_id", as: Bool?.self) == true)
                #expect(try row.decode("ev_reason", as: Bool?.self) == true)
            }

            // A second revert changes nothing: not a row, not an updated_at, no correction.
            let settled = try Self.rows(db)
            let again = try Self.revert(database, ["--run", "1", "--json"])
            #expect(again.status == 0, "\(again.output)")
            let second = try Self.object(again)
            #expect(Self.list(second, "restored").isEmpty)
            #expect(
                (second["reason"] as? String)?.hasPrefix("nothing to restore of run 1; 7 already reverted by run 2")
                    == true)
            #expect(Self.list(second, "alreadyReverted").count == 7)
            #expect(Self.list(second, "alreadyReverted").allSatisfy { $0["revertedByRunID"] as? Int == 2 })
            #expect(try Self.rows(db) == settled)
            #expect(try RunCommandTests.corrections(db, run: 3).isEmpty)
        }
    }

    @Test func leavesAnEntitlementChangedSinceAloneAndListsIt() throws {
        try Self.afterANight { database, apple, before in
            let db = try database.connect()
            let environment = apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
            let night = try Self.states(db)
            // The app gives the refunded user access again, with an expiry of its own.
            try db.execute(
                """
                UPDATE entitlements SET active = true, expires_at = '2030-01-01 00:00:00+00', updated_at = now()
                WHERE user_id = 'u-refund'
                """)
            // The app rewrites the extended row with the very values the night left.
            try db.execute(
                "UPDATE entitlements SET updated_at = now() + interval '1 second' WHERE user_id = 'u-extend'")
            // The account is gone: so is its row.
            try db.execute("DELETE FROM entitlements WHERE user_id = 'u-deleted'")
            // Support re-verifies a user Apple now says renewed (run 2 extends the night's shortened row).
            apple.answer(
                "UkVDRUlQVC1TSE9SVEVO",
                with: .valid([
                    P(
                        product: "monthly", transactionID: "t4", originalTransactionID: "t4",
                        purchased: RunCommandTests.day(-20), expires: RunCommandTests.day(50))
                ]))
            let support = try ReceiptReconBinary.run(
                ["verify-user", "u-shorten", "--as-of", RunCommandTests.asOf], environment: environment)
            #expect(support.status == 0, "\(support.output)")
            let changedSince = try Self.states(db)

            let result = try Self.revert(database, ["--run", "1", "--json"])
            #expect(result.status == 0, "\(result.output)")
            let object = try Self.object(result)
            let leftAlone = Dictionary(
                uniqueKeysWithValues: Self.list(object, "leftAlone").map {
                    (
                        "\($0["userID"] as? String ?? "?") \($0["entitlement"] as? String ?? "?")",
                        $0["why"] as? String ?? "?"
                    )
                })
            #expect(
                leftAlone == [
                    "u-refund pro": "values_changed", "u-extend premium": "updated_since",
                    "u-deleted pro": "row_gone", "u-shorten premium": "corrected_since",
                ])
            #expect(
                Set(Self.list(object, "restored").map { "\($0["userID"] as? String ?? "?")" })
                    == ["u-grant", "u-regrant", "u-revoke"])

            let after = try Self.states(db)
            for key in ["u-refund/pro", "u-extend/premium", "u-shorten/premium"] {
                #expect(after[key] == changedSince[key], "\(key) left alone")
            }
            #expect(after["u-deleted/pro"] == nil)
            for key in ["u-regrant/pro", "u-revoke/premium"] { #expect(after[key] == before[key], "\(key)") }
            #expect(after["u-grant/pro"] == "false never app_store")
            #expect(
                try RunCommandTests.corrections(db, run: 3) == [
                    "u-grant pro revoke", "u-regrant pro revoke", "u-revoke premium grant",
                ])

            // In words too, and again on a second revert: the ones left alone are still listed, nothing moves.
            let rows = try Self.rows(db)
            let text = try Self.revert(database, ["--run", "1"])
            #expect(text.status == 0, "\(text.output)")
            #expect(text.stdout.contains("Left alone (changed since run 1; not touched):"), "\(text.stdout)")
            #expect(
                text.stdout.contains("u-refund pro: changed since the run: now active, expires 2030-01-01T00:00:00Z"))
            #expect(text.stdout.contains("u-shorten premium: run 2 corrected it since (renewal)"))
            #expect(text.stdout.contains("u-deleted pro: the row no longer exists"))
            #expect(text.stdout.contains("u-extend premium: rewritten since the run"))
            #expect(
                text.stdout.contains(
                    "nothing to restore of run 1; left 4 alone: changed since the run; 3 already reverted by run 3"))
            #expect(try Self.rows(db) == rows)

            // Newest first: undo support's run 2 (a verify-user run: the user's lock, no night's), then the
            // night again. Run 2's correction and its undo cancel out, so the night's shorten goes back too.
            let support2 = try Self.revert(database, ["--run", "2", "--json"])
            #expect(support2.status == 0, "\(support2.output)")
            #expect(Self.list(try Self.object(support2), "restored").map { $0["userID"] as? String } == ["u-shorten"])
            #expect(try Self.states(db)["u-shorten/premium"] == night["u-shorten/premium"])
            let again = try Self.object(try Self.revert(database, ["--run", "1", "--json"]))
            #expect(Self.list(again, "restored").map { $0["userID"] as? String } == ["u-shorten"])
            #expect(Self.list(again, "leftAlone").count == 3)
            #expect(try Self.states(db)["u-shorten/premium"] == before["u-shorten/premium"])
        }
    }

    @Test func aDryRunChangesNoEntitlementAndRecordsWhatItWouldDo() throws {
        try Self.afterANight { database, _, before in
            let db = try database.connect()
            let night = try Self.rows(db)
            let result = try Self.revert(database, ["--run", "1", "--dry-run", "--json"])
            #expect(result.status == 0, "\(result.output)")
            let object = try Self.object(result)
            #expect(object["dryRun"] as? Bool == true)
            #expect(Self.list(object, "restored").count == 7)
            #expect(try Self.rows(db) == night, "a dry run writes no entitlement")
            // Recorded like run --dry-run: a run row, and its corrections never applied.
            let run = try #require(
                try db.query("SELECT kind, dry_run, reverts_run_id FROM recon_runs WHERE id = 2").first)
            #expect(try run.decode("kind", as: String.self) == "revert" && run.decode("dry_run", as: Bool.self))
            #expect(try run.decode("reverts_run_id", as: Int64?.self) == 1)
            #expect(try RunCommandTests.corrections(db, run: 2, applied: false).count == 7)
            #expect(try RunCommandTests.corrections(db, run: 2, applied: true).isEmpty)

            // The dry run undid nothing: the revert itself still restores all seven.
            let real = try Self.revert(database, ["--run", "1", "--json"])
            #expect(real.status == 0, "\(real.output)")
            #expect(Self.list(try Self.object(real), "restored").count == 7)
            let after = try Self.states(db)
            for (key, state) in before { #expect(after[key] == state, "\(key)") }
        }
    }
}
