import Foundation
import Postgres
import TestSupport
import Testing

/// `verify-user` draws on the same hourly budget as the nightly shards but never waits for the next
/// hour: when the hour is spent, support is told the user was not verified, never "no correction".
@Suite struct VerifyUserBudgetTests {
    @Test func aSpentHourVerifiesNothingAndSaysSoWithExit69() throws {
        try RunCommandTests.drifted { apple, database in
            let db = try database.connect()
            let before = try RunCommandTests.entitlementsDump(db)
            // The nightly shards spent this hour's verifyReceipt requests (and the next hour's, so the test
            // does not depend on when in the hour it runs).
            try db.execute(
                """
                INSERT INTO recon_request_budget (endpoint, window_start, granted)
                SELECT 'verify_receipt', date_trunc('hour', now(), 'UTC') + h * interval '1 hour', 10
                FROM generate_series(0, 1) AS h
                """)
            let result = try ReceiptReconBinary.run(
                [
                    "verify-user", "u-grant", "--json", "--as-of", RunCommandTests.asOf, "--max-attempts", "1",
                    "--max-requests-per-hour", "10",
                ],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })

            let object = try JSONOnEveryExitTests.expectFailure(result, exit: 69, status: "failed", errorLine: false)
            let reason = try #require(object["reason"] as? String)
            #expect(reason.contains("--max-requests-per-hour 10 spent for verify_receipt"), "\(reason)")
            #expect(reason.contains("the user was not verified"), "\(reason)")
            #expect(apple.received.isEmpty, "Apple was asked nothing")
            #expect(try RunCommandTests.entitlementsDump(db) == before)
            #expect(try db.query("SELECT count(*)::int AS n FROM recon_results").first!.decode("n") == 0)
            #expect(try db.query("SELECT status FROM recon_runs").first!.decode("status") == "failed")
        }
    }
}
