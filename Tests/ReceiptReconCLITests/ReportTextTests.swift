import Foundation
import Postgres
import TestSupport
import Testing

/// `report`'s text, whole: what an operator reads in the morning is compared at once, for a run row
/// whose every instant is fixed, so a line reworded, dropped or moved shows here.
@Suite struct ReportTextTests {
    @Test func aRunsReportIsItsExpectedTextWhole() throws {
        try TestDatabase.with { database in
            let json = ReportHTMLTests.summaryJSON(id: 3, unverified: 4, exitCode: 1)
            try database.connect().executeScript(
                """
                INSERT INTO recon_runs (id, kind, status, dry_run, as_of, started_at, finished_at, summary)
                VALUES (3, 'nightly', 'completed', false, '2026-01-03T03:00:00Z', '2026-01-03T03:00:00Z',
                        '2026-01-03T03:02:05Z', '\(json)');
                """)
            let result = try ReceiptReconBinary.run(
                ["report", "--run", "3"], environment: ["DATABASE_URL": database.conninfo])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout == Self.expected)
        }
    }

    /// `report --run 3` of that row.
    static let expected = #"""
        Run 3 (nightly, shard 0/1) completed in 125.0 s
          as of 2026-01-03T03:00:00Z; started 2026-01-03T03:00:00Z
        Receipts: 90 of 90 selected, 40 of 40 users
          outcomes: valid 86, unverified 4
          Apple statuses: 0 86, none 4
        Corrections applied: 4
          revoke: 4 (refund 4)
        Flags: 2 (bundle_mismatch 2)
        verifyReceipt: 97 requests, 7 retries, 3 throttled (HTTP 429), 0 re-routes (21007/21008); latency p50 120 ms, p95 480 ms

        """#
}
