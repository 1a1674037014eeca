import Foundation
import Testing

@testable import Reconciliation

/// The HTML report's server-api night tables and the chart's marks, from summaries (the CLI tests
/// render them from real runs; these pin the rules).
@Suite struct HTMLReportNightTests {
    static func night() -> RunSummary {
        var summary = ReportFixtures.summary()
        summary.backend = "server-api"
        var figures = NotificationFigures()
        (figures.read, figures.stored, figures.rejected, figures.unmatched, figures.deliveryFailed) = (9, 7, 2, 3, 4)
        (figures.users, figures.pages) = (6, 2)
        figures.unknownTypes = ["FUTURE_TYPE": 1, "<b>ODD</b>": 2]
        figures.incomplete = "a page failed"
        summary.notifications = figures
        var budget = BudgetFigures(maxRequestsPerHour: 500)
        budget.sandboxMaxRequestsPerHour = 40
        budget.grantedByEndpoint = [
            "transaction_history": 500, "notification_history": 3, "sandbox/transaction_history": 2,
        ]
        budget.spentEndpoint = "transaction_history"
        budget.usersLeft = 12
        summary.budget = budget
        summary.usersByReason = ["sweep": 2, "notified": 5, "new": 1]
        summary.usersLeftByReason = ["sweep": 12]
        return summary
    }

    @Test func aServerAPINightHasItsNotificationsBudgetAndUsersTables() throws {
        let html = HTMLReport.render(Self.night(), history: [])
        let text = try HTMLReportTests.parse(html).text
        for row in [
            "Read (signature and chain verified)9", "of which new to the job7",
            "Refused (forged, another app or environment: never acted on)2",
            "Unmatched (a purchase no stored row holds)3", "Undelivered (the app's webhook never received it)4",
            "Unknown type FUTURE_TYPE (kept)1", "Unknown type <b>ODD</b> (kept)2",
            "Incomplete, left for the next run: a page failed.",
            "transaction_history (production)500 / 500 (spent)", "notification_history (production)3 / 500",
            "transaction_history (sandbox)2 / 40", "12 users left for the next night",
            "Users by reasonReasonVerifiedLeftnotified50new10sweep212",
        ] {
            #expect(text.contains(row), "missing \(row)")
        }
        #expect(!html.contains("<b>ODD"), "a type from Apple is escaped")
    }

    @Test func aVerifyReceiptNightHasNone() throws {
        let text = try HTMLReportTests.parse(HTMLReport.render(ReportFixtures.summary(), history: [])).text
        for heading in ["Notifications (Apple's history)", "Apple request budget", "Users by reason"] {
            #expect(!text.contains(heading))
        }
    }

    @Test(
        arguments: [
            (RunStatus.completed, false, nil), (.partial, false, nil), (.completed, true, "dry run"),
            (.partial, true, "dry run"),
            (.aborted, false, "aborted"), (.failed, false, "failed"), (.interrupted, false, "interrupted"),
            (.running, false, "running"),
        ] as [(RunStatus, Bool, String?)])
    func aRunIsANightWhenItRanToTheEndForReal(status: RunStatus, dryRun: Bool, mark: String?) {
        var run = ReportFixtures.summary()
        (run.status, run.dryRun) = (status, dryRun)
        #expect(HTMLReport.chartMark(run) == mark)
    }

    @Test func theChartMarksDryAndFailedRunsAndLeavesThemOutOfTheTrend() throws {
        let history = [
            (1, RunStatus.completed, false), (2, .completed, true), (3, .failed, false), (4, .partial, false),
            (5, .completed, false),
        ].map { id, status, dry in
            var run = ReportFixtures.summary(runID: Int64(id))
            (run.status, run.dryRun) = (status, dry)
            return run
        }
        let html = HTMLReport.render(history[4], history: history)
        _ = try HTMLReportTests.parse(html)
        #expect(html.contains("<title>run 2 (dry run, not a night): verified"))
        #expect(html.contains("<title>run 3 (failed, not a night): corrections"))
        for id in [1, 4, 5] { #expect(html.contains("<title>run \(id): verified")) }
        #expect(html.components(separatedBy: "class=\"mark-band\"").count - 1 == 2)
        #expect(html.contains("class=\"mark-label\">dry</text>") && html.contains("class=\"mark-label\">failed</text>"))
        let polyline = try #require(html.range(of: "<polyline points=\"")?.upperBound)
        let attribute = html[polyline...].prefix { $0 != "\"" }
        #expect(attribute.split(separator: " ").count == 3, "runs 1, 4 and 5: \(attribute)")
        #expect(html.contains("Dry or failed run: not a night, not in the trend"))
    }

    @Test func aChartOfRealNightsHasNoMarks() {
        let history = (1...3).map { ReportFixtures.summary(runID: Int64($0)) }
        let html = HTMLReport.render(history[2], history: history)
        #expect(!html.contains("mark-band") && !html.contains("mark-label") && !html.contains("not a night:"))
        #expect(html.contains("class=\"trend\""))
    }
}
