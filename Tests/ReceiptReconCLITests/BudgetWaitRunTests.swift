import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// A night whose hour of `--max-requests-per-hour` is spent waits for the next clock hour (while it is
/// younger than `--budget-hours`) and says so in its log, with when it resumes, so that cron's log does
/// not show a run that looks stuck: the built binary against a scripted App Store Server API and a real
/// database, stopped by SIGTERM once it waits.
@Suite struct BudgetWaitRunTests {
    @Test func aSpentHourIsWaitedOutAndSaidInTheLog() throws {
        try SandboxLimitsRunTests.world(8, stored: .production, found: .production) { database, db, api in
            let running = try ReceiptReconBinary.start(
                [
                    "run", "--backend", "server-api", "--no-notifications", "--older-than", "0", "--as-of",
                    SandboxLimitsRunTests.World.asOf, "--max-requests-per-hour", "3", "--budget-hours", "2",
                ],
                environment: api.environment.merging([
                    "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example",
                    "RECON_ENVIRONMENT": "production",
                ]) { $1 })
            // The hour's three requests are leased first; the next user's then finds the hour spent (every
            // user is admitted at once, so within moments: two seconds leave room for a loaded machine).
            let deadline = Date().addingTimeInterval(60)
            while try SandboxLimitsRunTests.ledger(db)["production/transaction_history"] ?? 0 < 3, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
            }
            Thread.sleep(forTimeInterval: 2)
            running.signal(SIGTERM)
            let result = try running.wait(timeout: 60)
            let line = result.stderrText.split(separator: "\n").first { $0.contains("event=budget.waiting") }
            let said = String(try #require(line, "no budget.waiting line: \(result.stderrText)"))
            #expect(said.contains("level=warning"), "\(said)")
            #expect(said.contains("endpoint=transaction_history") && said.contains("limit=3"), "\(said)")
            // When the next clock hour opens (a quarter of a second past it, by PostgreSQL's clock).
            #expect(said.firstMatch(of: /resumes_at=\d{4}-\d\d-\d\dT\d\d:(00:0\d|59:5\d)Z/) != nil, "\(said)")
        }
    }
}
