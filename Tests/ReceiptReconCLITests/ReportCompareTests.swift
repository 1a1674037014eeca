import Foundation
import Postgres
import TestSupport
import Testing

/// `report --compare RUN_A RUN_B` through the built binary, over two runs inserted directly: the
/// users whose corrections or flag kinds differ, one line each, and the count.
@Suite struct ReportCompareTests {
    static let seed = """
        INSERT INTO recon_runs (id, kind, status, dry_run, as_of) VALUES
          (1, 'nightly', 'completed', true, now()), (2, 'nightly', 'completed', true, now());
        INSERT INTO recon_corrections (run_id, user_id, entitlement, action, reason, after_active, applied) VALUES
          (1, 'alice', 'premium', 'revoke', 'refund', false, false), (2, 'alice', 'premium', 'revoke', 'refund', false, false),
          (1, 'bob', 'pro', 'grant', 'purchase_not_granted', true, false),
          (2, 'bob', 'pro', 'grant', 'purchase_not_granted', true, true),
          (2, E'e rin\\n', 'premium', 'revoke', 'invalid_receipt', false, false),
          (1, 'frank', 'premium', 'revoke', 'refund', false, false),
          (2, 'frank', 'premium', 'revoke', 'expired', false, false);
        INSERT INTO recon_flags (run_id, receipt_id, user_id, kind) VALUES
          (1, 1, 'alice', 'refunded'), (2, 1, 'alice', 'refunded'),
          (1, 2, 'bob', 'unverified'), (1, 3, 'bob', 'unverified'), (2, 2, 'bob', 'unverified'),
          (1, 4, 'carol', 'unverified');
        """

    @Test func listsEveryUserWhoseDecisionsDifferThenTheCount() throws {
        try TestDatabase.with { database in
            try database.connect().executeScript(Self.seed)
            let environment = ["DATABASE_URL": database.conninfo]
            let result = try ReceiptReconBinary.run(["report", "--compare", "1", "2"], environment: environment)
            #expect(result.status == 0, "\(result.output)")
            #expect(
                result.stdout == """
                    carol: only in run 1: flag unverified; only in run 2: nothing
                    "e rin\\n": only in run 1: nothing; only in run 2: revoke premium (invalid_receipt)
                    frank: only in run 1: revoke premium (refund); only in run 2: revoke premium (expired)
                    3 users differ between run 1 and run 2

                    """)

            let json = try ReceiptReconBinary.run(
                ["report", "--compare", "2", "1", "--json"], environment: environment)
            #expect(json.status == 0, "\(json.output)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["runA"] as? Int == 2 && object["runB"] as? Int == 1)
            #expect(object["differingUsers"] as? Int == 3)
            let users = try #require(object["users"] as? [[String: Any]])
            #expect(users.map { $0["userId"] as? String } == ["carol", "e rin\n", "frank"])
            let frank = try #require(users.last)
            #expect(
                (frank["onlyInA"] as? [String: Any])?["corrections"] as? [[String: String]] == [
                    ["entitlement": "premium", "action": "revoke", "reason": "expired"]
                ])
            #expect((users[0]["onlyInB"] as? [String: Any])?["flags"] as? [String] == ["unverified"])

            let same = try ReceiptReconBinary.run(["report", "--compare", "1", "1"], environment: environment)
            #expect(same.status == 0 && same.stdout == "0 users differ between run 1 and run 1\n", "\(same.output)")
        }
    }

    @Test func anUnknownRunIs65AndAMissingSecondRunIsAUsageError() throws {
        try TestDatabase.with { database in
            try database.connect().executeScript(Self.seed)
            let environment = ["DATABASE_URL": database.conninfo]
            let unknown = try ReceiptReconBinary.run(["report", "--compare", "1", "999"], environment: environment)
            #expect(unknown.status == 65, "\(unknown.output)")
            #expect(unknown.stderr.contains("there is no run 999"))
            #expect(unknown.stdout.isEmpty)
            let missing = try ReceiptReconBinary.run(["report", "--compare", "1"], environment: environment)
            #expect(missing.status == 64, "\(missing.output)")
            let mixed = try ReceiptReconBinary.run(
                ["report", "--compare", "1", "2", "--html", "x.html"], environment: environment)
            #expect(mixed.status == 64, "\(mixed.output)")
        }
    }
}
