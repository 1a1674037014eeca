import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// `report --html FILE --last` end to end: rows inserted directly, the page written and readable; and a
/// server-api night's page as a browser shows it, after real runs of every kind.
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

    typealias Night = NotificationNightTests

    /// Four runs through the binary against a scripted App Store Server API: a real night, a dry run, a
    /// night Apple refused (401), and a real night driven by notifications with a request budget. The page
    /// of the last shows what that night read, spent and whom it verified, and its chart marks the dry
    /// and the refused runs and leaves them out of the trend.
    @Test(.enabled(if: HeadlessChromium.isInstalled, "no /usr/bin/chromium: apt-get install -y chromium"))
    func aServerAPINightsPageShowsNotificationsBudgetUsersAndMarksRunsThatAreNoNight() throws {
        try Night.world(4) { database, _, api in
            let first = try Night.run(database, api, asOf: Night.hoursAgo(6))
            #expect(first.result.status == 0, "\(first.result.output)")
            let dry = try Night.run(database, api, asOf: Night.hoursAgo(5), ["--dry-run"])
            #expect(dry.result.status == 0, "\(dry.result.output)")
            api.scriptBundleID("com.example", [.unauthorized])
            let refused = try Night.run(database, api, asOf: Night.hoursAgo(4))
            #expect(refused.result.status == 78, "\(refused.result.output)")
            api.scriptBundleID("com.example", [])

            // Between the nights: a refund the app's webhook missed, a forgery, a purchase no row holds whose
            // delivery failed, and a type this build does not know.
            let refund = Night.refund(api, 3, hoursAgo: 3, uuid: "n-refund-u03")
            let stranger = Night.Transaction(id: "9999", purchased: Night.hoursAgo(3), expires: Night.day(30))
            let u02 = Night.Transaction(id: "1002", purchased: Night.day(-10), expires: Night.day(20))
            api.scriptEveryID(
                .production, .notificationHistory,
                [
                    .notifications([
                        refund,
                        Night.Notification(
                            uuid: "n-forged", type: "REFUND",
                            transaction: Night.Transaction(
                                id: "1001", purchased: Night.day(-10), expires: Night.day(20),
                                revoked: Night.hoursAgo(3)),
                            signed: Night.hoursAgo(3), forged: true),
                        Night.Notification(
                            uuid: "n-stranger", type: "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: stranger,
                            signed: Night.hoursAgo(3), deliveryFailed: true),
                        Night.Notification(
                            uuid: "n-future", type: "FUTURE_TYPE", transaction: u02, signed: Night.hoursAgo(3)),
                    ])
                ])
            let night = try Night.run(database, api, asOf: Night.hoursAgo(2), ["--max-requests-per-hour", "500"])
            #expect(night.result.status == 0, "\(night.result.output)")

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("night-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("report.html").path
            let written = try ReceiptReconBinary.run(
                ["report", "--html", path, "--last"], environment: ["DATABASE_URL": database.conninfo])
            #expect(written.status == 0, "\(written.output)")
            let page = try HeadlessChromium.read(page: path, profile: directory.appendingPathComponent("profile").path)
            let runID = try #require(night.summary["runID"] as? Int)
            #expect(page.text.contains("receipt-recon: run \(runID)"))

            // The notifications, as the night's summary counted them.
            let figures = Night.notifications(night.summary)
            let notifications = try #require(page.tables["Notifications (Apple's history)"], "\(page.tables.keys)")
            func count(_ label: String) -> String? { notifications.first { $0.first?.hasPrefix(label) == true }?.last }
            #expect(count("Read") == (figures["read"] as? Int).map(String.init))
            #expect(count("Refused") == "1" && figures["rejected"] as? Int == 1)
            #expect(count("Unmatched") == "1" && figures["unmatched"] as? Int == 1)
            #expect(count("Undelivered") == "1" && figures["deliveryFailed"] as? Int == 1)
            #expect(count("Unknown type FUTURE_TYPE") == "1")
            #expect(page.notes["Notifications (Apple's history)"]?.contains("notifications_unmatched") == true)

            // The budget: what the night spent per endpoint against the cap it was given.
            let budget = try #require(night.summary["budget"] as? [String: Any])
            let granted = try #require(budget["grantedByEndpoint"] as? [String: Int])
            #expect(!granted.isEmpty)
            let budgetRows = try #require(page.tables["Apple request budget"], "\(page.tables.keys)")
            #expect(
                Set(budgetRows) == Set(granted.map { ["\($0.key) (production)", "\($0.value) / 500"] }), "\(budgetRows)"
            )

            // Users by reason: verified and left, as the summary has them.
            let verified = Night.reasons(night.summary)
            #expect(verified["notified"] ?? 0 >= 1, "\(night.summary)")
            let left = night.summary["usersLeftByReason"] as? [String: Int] ?? [:]
            let users = try #require(page.tables["Users by reason"], "\(page.tables.keys)")
            #expect(Set(users.map { $0[0] }) == Set(verified.keys).union(left.keys), "\(users)")
            for row in users {
                #expect(row[1...] == [String(verified[row[0]] ?? 0), String(left[row[0]] ?? 0)], "\(row)")
            }

            // The chart: four runs; the dry and the refused ones marked, not in the trend.
            let list = try ReceiptReconBinary.run(
                ["report", "--list", "--json"], environment: ["DATABASE_URL": database.conninfo])
            let runs = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let statusOf = Dictionary(uniqueKeysWithValues: runs.map { ($0["runID"] as? Int ?? 0, $0) })
            let refusedID = try #require(refused.summary["runID"] as? Int)
            let refusedStatus = try #require(statusOf[refusedID]?["status"] as? String)
            #expect(refusedStatus != "completed" && refusedStatus != "partial")
            #expect(page.markLabels == ["dry", refusedStatus], "\(page.markLabels)")
            #expect(page.trendPoints == 2, "the first night and the last")
            let dryID = try #require(dry.summary["runID"] as? Int)
            #expect(
                page.bars.contains { $0.hasPrefix("run \(dryID) (dry run, not a night): verified") }, "\(page.bars)")
            #expect(page.bars.contains { $0.hasPrefix("run \(refusedID) (\(refusedStatus), not a night): ") })
            #expect(page.bars.contains { $0.hasPrefix("run \(runID): verified") })
        }
    }
}
