import Foundation
import Reconciliation
import TestSupport
import Testing

/// `NightStreaks`: the nights running of each condition, newest first, as the alerts read them.
struct NightStreaksTests {
    typealias Condition = NightStreaks.Condition

    /// One night of a table row, named briefly in the test's arguments.
    struct Night: CustomStringConvertible {
        let summary: RunSummary
        let description: String
    }

    /// A nightly run that ran to the end, with `conditions` and none of the others.
    static func night(_ conditions: Set<Condition>, status: RunStatus = .completed, readHistory: Bool = true)
        -> Night
    {
        var summary = ReportFixtures.summary()
        summary.status = status
        summary.outcomes = conditions.contains(.transientlyUnverified) ? [.unverified: 2] : [:]
        summary.permanentlyUnverified = 0
        var budget = BudgetFigures(maxRequestsPerHour: 100)
        if conditions.contains(.budgetSpent) { budget.spentEndpoint = "transaction_history" }
        summary.budget = budget
        var figures = NotificationFigures()
        if readHistory { figures.from = Date(timeIntervalSince1970: 1_767_200_000) }
        if conditions.contains(.notificationsIncomplete) { figures.incomplete = "a page failed" }
        if conditions.contains(.notificationsUndelivered) { figures.deliveryFailed = 3 }
        summary.notifications = figures
        let named = [status.rawValue] + conditions.map(\.rawValue).sorted() + (readHistory ? [] : ["no history read"])
        return Night(summary: summary, description: named.joined(separator: " "))
    }

    @Test(arguments: [
        // Newest first: the streak stops at the first night without the condition.
        ([night([.budgetSpent]), night([.budgetSpent]), night([]), night([.budgetSpent])], Condition.budgetSpent, 2),
        ([night([]), night([.budgetSpent]), night([.budgetSpent])], .budgetSpent, 0),
        // A night a breaker or error stopped neither breaks nor extends a streak.
        (
            [night([.transientlyUnverified]), night([], status: .aborted), night([.transientlyUnverified])],
            .transientlyUnverified, 2
        ),
        (
            [night([.transientlyUnverified], status: .partial), night([.transientlyUnverified])],
            .transientlyUnverified, 2
        ),
        // The budget ends a night as completed; a night of another status was ended by something else.
        ([night([.budgetSpent], status: .partial), night([.budgetSpent])], .budgetSpent, 0),
        // A night whose history another shard of the set read is passed over.
        (
            [night([.notificationsUndelivered]), night([], readHistory: false), night([.notificationsUndelivered])],
            .notificationsUndelivered, 2
        ),
        ([night([.notificationsIncomplete]), night([.notificationsUndelivered])], .notificationsIncomplete, 1),
        ([night([.notificationsIncomplete]), night([.notificationsUndelivered])], .notificationsUndelivered, 0),
        ([Night](), .budgetSpent, 0),
    ])
    func countsTheNightsRunning(_ nights: [Night], _ condition: Condition, _ expected: Int) {
        #expect(NightStreaks(newestFirst: nights.map(\.summary)).nights[condition] == expected)
    }

    @Test func aDryRunOrANightWithoutNotificationsIsPassedOver() {
        var dry = Self.night([]).summary
        dry.dryRun = true
        var withoutHistory = Self.night([]).summary
        withoutHistory.notifications = nil
        let nights = [dry, withoutHistory, Self.night([.notificationsUndelivered, .budgetSpent]).summary]
        let streaks = NightStreaks(newestFirst: nights)
        #expect(streaks.nights[.notificationsUndelivered] == 1)
        #expect(streaks.nights[.budgetSpent] == 0, "a night without notifications is still a night")
    }

    @Test func theFileCarriesTheStreaksAndARunWithoutTheDatabaseKeepsThem() throws {
        var end = PrometheusMetricsTests.end(Self.night([]).summary, .success)
        end.streaks = NightStreaks([.budgetSpent: 3, .notificationsUndelivered: 2])
        let written = PrometheusMetricsTests.file(end)
        let families = try PrometheusMetricsTests.parse(written)
        #expect(PrometheusMetricsTests.value(families, "consecutive_nights", ["condition": "budget_spent"]) == 3)
        #expect(
            PrometheusMetricsTests.value(families, "consecutive_nights", ["condition": "transiently_unverified"]) == 0)
        #expect(
            PrometheusMetricsTests.value(families, "consecutive_nights", ["condition": "notifications_undelivered"])
                == 2)

        // The database unreachable: the run that never started carries the streaks it cannot count.
        let unreachable = PrometheusMetricsTests.neverStarted(status: "failed", .unavailable)
        let carried = try PrometheusMetricsTests.parse(PrometheusMetricsTests.file(unreachable, previous: written))
        #expect(PrometheusMetricsTests.value(carried, "last_run_exit_code") == 69)
        #expect(PrometheusMetricsTests.value(carried, "consecutive_nights", ["condition": "budget_spent"]) == 3)

        // A dry run neither writes streaks of its own nor drops the nightly run's.
        var dry = PrometheusMetricsTests.end(Self.night([.budgetSpent]).summary, .success)
        dry.dryRun = true
        dry.streaks = NightStreaks([.budgetSpent: 9])
        let afterDry = try PrometheusMetricsTests.parse(PrometheusMetricsTests.file(dry, previous: written))
        #expect(PrometheusMetricsTests.value(afterDry, "consecutive_nights", ["condition": "budget_spent"]) == 3)
        #expect(
            PrometheusMetricsTests.value(afterDry, "consecutive_nights", ["condition": "budget_spent"], dryRun: true)
                == nil)

        // A night that could count replaces them.
        var next = PrometheusMetricsTests.end(Self.night([]).summary, .success)
        next.streaks = NightStreaks([:])
        let replaced = try PrometheusMetricsTests.parse(PrometheusMetricsTests.file(next, previous: written))
        #expect(PrometheusMetricsTests.value(replaced, "consecutive_nights", ["condition": "budget_spent"]) == 0)
    }
}
