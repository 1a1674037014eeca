import Foundation

/// How many nights in a row, newest first, a shard's nightly runs had each condition an alert waits
/// for (`receipt_recon_consecutive_nights{condition}`). The file carries the count, so an alert
/// compares a number (`>= 3`) instead of holding `for: 2d` over samples that a scrape gap would reset.
///
/// Only nightly runs that were not dry runs and ran to the end (`completed`, `partial`) are nights: a
/// run a breaker, an error or a signal stopped says nothing about its conditions (its own alert fires),
/// so it neither breaks a streak nor extends it. For the notification conditions, a night that did
/// not read the history (another shard of its set had just read it, or `--no-notifications`) is
/// passed over the same way: in a set, which shard reads changes from night to night.
public struct NightStreaks: Sendable, Equatable {
    public enum Condition: String, CaseIterable, Sendable {
        /// The night's request budget ended it (`last_run_budget_spent` 1).
        case budgetSpent = "budget_spent"
        /// Some receipts stayed transiently unverified (exit 1).
        case transientlyUnverified = "transiently_unverified"
        /// The history was not read to its end: a span was left for the next night.
        case notificationsIncomplete = "notifications_incomplete"
        /// Notifications whose every delivery to the app's webhook failed.
        case notificationsUndelivered = "notifications_undelivered"
    }

    /// The summaries read: a streak longer than this is reported as this long.
    public static let window = 30

    public var nights: [Condition: Int]

    public init(_ nights: [Condition: Int] = [:]) {
        self.nights = nights
    }

    /// The streaks of `summaries`: one shard's nightly runs, newest first (`window` of them at most).
    public init(newestFirst summaries: [RunSummary]) {
        var nights: [Condition: Int] = [:]
        for condition in Condition.allCases {
            var count = 0
            for summary in summaries {
                guard let holds = Self.holds(condition, in: summary) else { continue }
                guard holds else { break }
                count += 1
            }
            nights[condition] = count
        }
        self.init(nights)
    }

    /// Whether `summary`'s night had `condition`; nil when the night does not count for it.
    static func holds(_ condition: Condition, in summary: RunSummary) -> Bool? {
        guard summary.kind == .nightly, !summary.dryRun,
            [.completed, .partial].contains(summary.status)
        else {
            return nil
        }
        switch condition {
        case .budgetSpent: return PrometheusMetrics.budgetEndedTheRun(summary) ?? false
        case .transientlyUnverified: return summary.transientlyUnverified > 0
        case .notificationsIncomplete, .notificationsUndelivered:
            guard let figures = summary.notifications, figures.from != nil || figures.incomplete != nil
            else {
                return nil
            }
            return condition == .notificationsIncomplete
                ? figures.incomplete != nil : figures.deliveryFailed > 0
        }
    }
}
