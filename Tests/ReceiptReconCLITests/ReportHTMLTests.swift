import Foundation
import Postgres
import TestSupport
import Testing

/// `report --html FILE --last` end to end: rows inserted directly, the page written and readable.
struct ReportHTMLTests {
    static func summaryJSON(id: Int, unverified: Int, exitCode: Int) -> String {
        """
        {"runID":\(id),"kind":"nightly","status":"completed","exitCode":\(exitCode),"dryRun":false,\
        "asOf":"2026-01-0\(id)T03:00:00Z","shard":"0/1","startedAt":"2026-01-0\(id)T03:00:00Z",\
        "finishedAt":"2026-01-0\(id)T03:02:05Z","durationSeconds":125,"abortReason":null,\
        "usersSelected":40,"usersProcessed":40,"receiptsSelected":90,"receiptsProcessed":90,\
        "outcomes":{"valid":\(90 - unverified),"unverified":\(unverified)},"appleStatuses":{"0":\(90 - unverified),"none":\(unverified)},\
        "corrections":{"revoke":{"refund":\(id + 1)}},"flags":{"bundle_mismatch":2},"revokedUsers":\(id + 1),\
        "appleRequests":97,"appleRetries":7,"appleThrottled":3,"appleHops":0,\
        "latencyP50Milliseconds":120,"latencyP95Milliseconds":480}
        """
    }

    @Test func writesTheLastRunsPage() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            for id in 1...3 {
                let json = Self.summaryJSON(id: id, unverified: id == 3 ? 4 : 0, exitCode: id == 3 ? 1 : 0)
                    .replacingOccurrences(of: "'", with: "''")
                try connection.executeScript(
                    """
                    INSERT INTO recon_runs (id, kind, status, dry_run, as_of, summary, finished_at)
                    VALUES (\(id), 'nightly', 'completed', false, now(), '\(json)', now());
                    """)
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "report-html-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("report.html").path

            let result = try ReceiptReconBinary.run(
                ["report", "--html", path, "--last"],
                environment: ["DATABASE_URL": database.conninfo])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout == path + "\n")
            let html = try String(contentsOfFile: path, encoding: .utf8)
            #expect(html.contains("receipt-recon: run 3"))
            #expect(html.contains("run 1: unverified 0") && html.contains("run 3: unverified 4"))
            #expect(html.contains("refund") && html.contains("480 ms"))
            #expect(!html.contains("src=") && !html.contains("href=") && !html.contains("<script"))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(leftovers == ["report.html"])
        }
    }
}
