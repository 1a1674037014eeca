import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// What produced a run, and Apple's side of it in the words of the service that answered: the summary
/// of `run` and `report` (text, JSON, HTML) names the backend and the version, a Server API run speaks
/// of App Store Server API requests, HTTP statuses and errorCodes, a verifyReceipt run of statuses and
/// 21007/21008 re-routes; and `verify-user --json` gives each entitlement before and after.
@Suite struct ReportBackendTests {
    typealias API = ServerAPIRunTests
    typealias Transaction = ServerAPIScriptTransaction

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aServerAPIRunIsReportedInServerAPITermsWithItsBackendAndVersion() throws {
        let api = try API.server()
        let version = try ReportListTests.version
        try TestDatabase.with { database in
            let db = try database.connect()
            try API.seedTables(db)
            try API.receipt(db, "u-ok", API.appReceipt(api, "3001", expires: API.day(10)))
            try API.premium(db, "u-ok", expires: API.day(10))
            api.script(
                .production, .transactionHistory, id: "3001",
                [.history([Transaction(id: "3001", purchased: API.day(-20), expires: API.day(10))])])
            // Known in neither environment: 404 with errorCode 4040010 twice (one hop to the sandbox).
            try API.receipt(db, "u-unknown", API.appReceipt(api, "7001", expires: API.day(10)))
            api.script(.production, .transactionHistory, id: "7001", [.error(4_040_010, status: 404)])
            api.script(.sandbox, .transactionHistory, id: "7001", [.error(4_040_010, status: 404)])
            // Throttled once, then answered.
            try API.receipt(db, "u-busy", API.appReceipt(api, "8001", expires: API.day(10)))
            api.script(
                .production, .transactionHistory, id: "8001",
                [
                    .tooManyRequests(retryAfter: .milliseconds(50)),
                    .history([Transaction(id: "8001", purchased: API.day(-20), expires: API.day(10))]),
                ])

            let result = try API.run(database, api)
            #expect([0, 1].contains(result.status), "\(result.output)")
            let summary = try Self.object(result.stdout)
            #expect(summary["backend"] as? String == "server-api")
            #expect(summary["version"] as? String == version)
            let answers = try #require(summary["serverAPIAnswers"] as? [String: Int], "\(summary)")
            // Two histories, and 72 pages of notifications: a first night reads 3 days in pieces of an hour.
            #expect(answers == ["200": 74, "404/4040010": 2, "429/4290000": 1], "\(answers)")

            let environment = ["DATABASE_URL": database.conninfo]
            let text = try ReceiptReconBinary.run(["report", "--last"], environment: environment)
            #expect(text.status == 0, "\(text.output)")
            #expect(text.stdout.contains("  backend server-api, receipt-recon \(version)\n"), "\(text.stdout)")
            #expect(
                text.stdout.contains(
                    "App Store Server API: 77 requests (notification_history 72, transaction_history 5), 1 retries, "
                        + "1 throttled (HTTP 429), "
                        + "1 asked the other environment after a 404"), "\(text.stdout)")
            #expect(
                text.stdout.contains(
                    "  answers: HTTP 200 74, HTTP 404 (errorCode 4040010) 2, HTTP 429 (errorCode 4290000) 1\n"),
                "\(text.stdout)")
            for verifyReceiptWord in ["verifyReceipt", "re-route", "21007", "Apple statuses"] {
                #expect(!text.stdout.contains(verifyReceiptWord), "\(verifyReceiptWord) in \(text.stdout)")
            }

            let json = try Self.object(
                try ReceiptReconBinary.run(["report", "--last", "--json"], environment: environment).stdout)
            #expect(json["backend"] as? String == "server-api" && json["version"] as? String == version)
            #expect(json["serverAPIAnswers"] as? [String: Int] == answers)

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let page = directory.appendingPathComponent("run.html").path
            let html = try ReceiptReconBinary.run(["report", "--last", "--html", page], environment: environment)
            #expect(html.status == 0, "\(html.output)")
            let content = try String(contentsOfFile: page, encoding: .utf8)
            #expect(content.contains("Backend server-api, receipt-recon \(version)"))
            #expect(content.contains("App Store Server API answers (per request)"))
            #expect(content.contains("<td>HTTP 404 (errorCode 4040010)</td><td class=\"n\">2</td>"))
            #expect(content.contains("App Store Server API traffic"))
            #expect(content.contains("Asked the other environment after a 404"))
            for verifyReceiptWord in ["verifyReceipt", "Re-routes", "21007", "Apple statuses"] {
                #expect(!content.contains(verifyReceiptWord), "\(verifyReceiptWord) in the page")
            }
        }
    }

    @Test func aVerifyReceiptRunSaysSoInItsOwnSummaryAndInTheReport() throws {
        let apple = try ScriptedAppleServer()
        let version = try ReportListTests.version
        try TestDatabase.with { database in
            try RunCommandTests.seed(database, apple)
            let result = try RunCommandTests.run(database, apple)
            #expect(result.status == 0, "\(result.output)")
            // `run`'s own summary, as cron mails it.
            #expect(result.stdout.contains("  backend verify-receipt, receipt-recon \(version)\n"), "\(result.stdout)")
            #expect(
                result.stdout.contains(
                    "verifyReceipt: 8 requests, 0 retries, 0 throttled (HTTP 429), 0 re-routes (21007/21008)"))
            #expect(result.stdout.contains("  Apple statuses: 0 7, 21010 1\n"), "\(result.stdout)")
            #expect(!result.stdout.contains("App Store Server API"))

            let report = try ReceiptReconBinary.run(
                ["report", "--last", "--json"], environment: ["DATABASE_URL": database.conninfo])
            let json = try Self.object(report.stdout)
            #expect(json["backend"] as? String == "verify-receipt" && json["version"] as? String == version)
            #expect(json["serverAPIAnswers"] == nil)
        }
    }

    /// Summaries stored before the backend and version were recorded still decode and print, saying
    /// nothing they do not know.
    @Test func aSummaryStoredBeforeBackendAndVersionStillReports() throws {
        try TestDatabase.with { database in
            let json = ReportHTMLTests.summaryJSON(id: 1, unverified: 0, exitCode: 0)
            try database.connect().execute(
                """
                INSERT INTO recon_runs (id, kind, status, dry_run, as_of, summary, finished_at)
                VALUES (1, 'nightly', 'completed', false, now(), \(PostgresJSON(json)), now())
                """)
            let environment = ["DATABASE_URL": database.conninfo]
            let text = try ReceiptReconBinary.run(["report", "--run", "1"], environment: environment)
            #expect(text.status == 0, "\(text.output)")
            #expect(!text.stdout.contains("backend"))
            #expect(text.stdout.contains("verifyReceipt: 97 requests, 7 retries, 3 throttled (HTTP 429), 0 re-routes"))
            let object = try Self.object(
                try ReceiptReconBinary.run(["report", "--run", "1", "--json"], environment: environment).stdout)
            #expect(object["runID"] as? Int == 1 && object["backend"] == nil && object["version"] == nil)
            let list = try ReceiptReconBinary.run(["report", "--list"], environment: environment)
            #expect(list.stdout.split(separator: "\n").last?.split(separator: " ").map(String.init)[4] == "-")
        }
    }

    @Test func verifyUserJSONGivesEachEntitlementBeforeAndAfter() throws {
        try RunCommandTests.drifted { apple, database in
            let environment = apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
            func verify(_ user: String, _ extra: [String] = []) throws -> [String: Any] {
                let result = try ReceiptReconBinary.run(
                    ["verify-user", user, "--as-of", RunCommandTests.asOf, "--json"] + extra, environment: environment)
                #expect(result.status == 0, "\(result.output)")
                return try Self.object(result.stdout)
            }
            func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

            let extended = try verify("u-extend")
            // The summary's keys are still there.
            #expect(extended["status"] as? String == "completed" && extended["runID"] as? Int == 1)
            #expect(extended["receiptsProcessed"] as? Int == 1 && extended["refundedAmount"] != nil)
            let entitlements = try #require(extended["entitlements"] as? [[String: Any]], "\(extended)")
            #expect(entitlements.count == 1)
            let premium = try #require(entitlements.first)
            #expect(premium["entitlement"] as? String == "premium")
            let before = try #require(premium["before"] as? [String: Any])
            let after = try #require(premium["after"] as? [String: Any])
            #expect(
                before["active"] as? Bool == true && before["expires_at"] as? String == iso(RunCommandTests.day(-10)))
            #expect(after["active"] as? Bool == true && after["expires_at"] as? String == iso(RunCommandTests.day(20)))
            #expect(after["product_id"] as? String == "monthly" && after["source"] as? String == "app_store")
            let correction = try #require(premium["correction"] as? [String: Any])
            #expect(correction["action"] as? String == "extend" && correction["reason"] as? String == "renewal")
            #expect(correction["applied"] as? Bool == true)

            // Nothing before: `before` is null; a dry run leaves `after` as it was and applies nothing.
            let granted = try verify("u-grant", ["--dry-run"])
            let pro = try #require((granted["entitlements"] as? [[String: Any]])?.first)
            #expect(pro["entitlement"] as? String == "pro")
            #expect(pro["before"] is NSNull && pro["after"] is NSNull, "\(pro)")
            #expect((pro["correction"] as? [String: Any])?["action"] as? String == "grant")
            #expect((pro["correction"] as? [String: Any])?["applied"] as? Bool == false)

            // Another source's row: shown, unchanged, no correction.
            let promo = try #require((try verify("u-promo")["entitlements"] as? [[String: Any]])?.first)
            #expect((promo["before"] as? [String: Any])?["source"] as? String == "promo")
            #expect((promo["after"] as? [String: Any])?["active"] as? Bool == true)
            #expect(promo["correction"] is NSNull)
        }
    }
}
