import Foundation
import Testing

@testable import Reconciliation

/// The summary names what produced it, and speaks of Apple in the words of the service that answered.
@Suite struct RunSummaryBackendTests {
    static func serverAPISummary() -> RunSummary {
        var summary = ReportFixtures.summary()
        summary.backend = "server-api"
        summary.version = "9.8.7"
        summary.appleStatuses = ["none": 3_017]
        summary.appleRequestsByEndpoint = ["transaction_history": 3_000, "subscription_statuses": 101]
        summary.serverAPIAnswers = ["200": 3_020, "429": 17, "404/4040010": 62, "transport": 2]
        return summary
    }

    @Test func aServerAPISummaryIsInServerAPITerms() {
        let text = Self.serverAPISummary().text
        #expect(text.contains("  backend server-api, receipt-recon 9.8.7\n"))
        #expect(
            text.contains(
                "App Store Server API: 3101 requests (subscription_statuses 101, transaction_history 3000), 53 retries, "
                    + "17 throttled (HTTP 429), 31 asked the other environment after a 404; latency p50 182 ms, p95 611 ms"
            ))
        #expect(
            text.contains(
                "  answers: HTTP 200 3020, HTTP 404 (errorCode 4040010) 62, HTTP 429 17, no answer (transport error) 2\n"
            ))
        #expect(!text.contains("Apple statuses") && !text.contains("re-route") && !text.contains("verifyReceipt"))
    }

    @Test func aVerifyReceiptSummaryIsInVerifyReceiptTerms() {
        var summary = ReportFixtures.summary()
        summary.backend = "verify-receipt"
        summary.version = "9.8.7"
        let text = summary.text
        #expect(text.contains("  backend verify-receipt, receipt-recon 9.8.7\n"))
        #expect(text.contains("  Apple statuses: 0 2981, 21003 24, none 12\n"))
        #expect(
            text.contains(
                "verifyReceipt: 3101 requests, 53 retries, 17 throttled (HTTP 429), 31 re-routes (21007/21008)"))
        #expect(!text.contains("App Store Server API"))
    }

    /// Stored before `backend`, `version` and `serverAPIAnswers` existed: it decodes, prints no backend
    /// line, and a Server API run of that time is still recognised by its endpoints.
    @Test func anOlderSummaryDecodesAndIsRecognisedByItsEndpoints() throws {
        let stored = """
            {"runID":3,"kind":"nightly","status":"completed","exitCode":0,"dryRun":false,\
            "asOf":"2026-01-01T03:00:00Z","shard":"0/1","startedAt":"2026-01-01T03:00:00Z","durationSeconds":5,\
            "usersSelected":1,"usersProcessed":1,"receiptsSelected":1,"receiptsProcessed":1,"outcomes":{"valid":1},\
            "appleStatuses":{"none":1},"corrections":{},"flags":{},"revokedUsers":0,"appleRequests":1,\
            "appleRetries":0,"appleThrottled":0,"appleHops":0,"appleRequestsByEndpoint":{"transaction_history":1}}
            """
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let summary = try decoder.decode(RunSummary.self, from: Data(stored.utf8))
        #expect(summary.backend == nil && summary.version == nil && summary.serverAPIAnswers == nil)
        #expect(summary.usedServerAPI)
        #expect(!summary.text.contains("backend"))
        #expect(summary.text.contains("App Store Server API: 1 requests (transaction_history 1)"))
        #expect(!summary.text.contains("answers:"), "no answers were counted then")
    }

    @Test func theJSONCarriesBackendVersionAndAnswers() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.serverAPISummary().json.utf8)) as? [String: Any])
        #expect(object["backend"] as? String == "server-api" && object["version"] as? String == "9.8.7")
        #expect((object["serverAPIAnswers"] as? [String: Int])?["404/4040010"] == 62)
    }

    @Test func theHTMLPageIsInServerAPITerms() {
        let page = HTMLReport.render(Self.serverAPISummary(), history: [])
        #expect(page.contains("Backend server-api, receipt-recon 9.8.7"))
        #expect(page.contains("App Store Server API answers (per request)"))
        #expect(page.contains("<td>no answer (transport error)</td><td class=\"n\">2</td>"))
        #expect(page.contains("App Store Server API traffic"))
        #expect(!page.contains("Apple statuses") && !page.contains("Re-routes") && !page.contains("verifyReceipt"))
    }
}
