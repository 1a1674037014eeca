import AppStoreReceipts
import Foundation

/// The HTML report's tables of a night driven by Apple's notification history (a `server-api` night):
/// what the history said, the Apple request budget the night drew on, and whom it verified and left,
/// per reason. The same figures as `report`'s text (`RunSummary+Selection`), laid out to be read at 3 a.m.
extension HTMLReport {
    /// The night's tables; empty for a run that neither read notifications, kept a budget nor counted
    /// users by reason (verifyReceipt nights, summaries stored before these figures existed).
    static func nightTables(_ summary: RunSummary) -> String {
        var html = ""
        if let figures = summary.notifications {
            html += notificationsTable(figures)
        } else if summary.usedServerAPI, summary.kind == .nightly {
            html += table(
                "Notifications (Apple's history)", ["Notifications", "Count"], [],
                note: "This run did not read Apple's notification history.")
        }
        if let budget = summary.budget { html += budgetTable(budget) }
        if let users = summary.usersByReason { html += usersTable(users, left: summary.usersLeftByReason ?? [:]) }
        return html
    }

    /// Read, refused, unmatched, undelivered and unknown types, with what each means and what to do.
    static func notificationsTable(_ figures: NotificationFigures) -> String {
        var rows = [
            ["Read (signature and chain verified)", String(figures.read)],
            ["of which new to the job", String(figures.stored)],
            ["Refused (forged, another app or environment: never acted on)", String(figures.rejected)],
            ["Unmatched (a purchase no stored row holds)", String(figures.unmatched)],
            ["Undelivered (the app's webhook never received it)", String(figures.deliveryFailed)],
            ["Users named", String(figures.users)],
            ["Pages", String(figures.pages)],
        ]
        for (type, count) in figures.unknownTypes.sorted(by: { $0.key < $1.key }) {
            rows.append(["Unknown type \(type) (kept)", String(count)])
        }
        var notes: [String] = []
        if let through = figures.through { notes.append("Read through \(iso(through)).") }
        if let incomplete = figures.incomplete { notes.append("Incomplete, left for the next run: \(incomplete).") }
        if let skipped = figures.skipped { notes.append("Not read: \(skipped).") }
        if figures.unmatched > 0 {
            notes.append("'receipt-recon export notifications_unmatched' lists the unmatched ones.")
        }
        if figures.deliveryFailed > 0 {
            notes.append("Undelivered notifications are changes the app's own webhook missed: check it.")
        }
        return table(
            "Notifications (Apple's history)", ["Notifications", "Count"], rows,
            note: notes.isEmpty ? nil : notes.joined(separator: " "))
    }

    /// Per endpoint and environment: the requests this run spent against the hourly cap all shards share.
    static func budgetTable(_ budget: BudgetFigures) -> String {
        let keys = budget.grantedByEndpoint.keys.sorted { a, b in
            let (ka, kb) = (AppleLimitKey(description: a), AppleLimitKey(description: b))
            let (ea, eb) = (ka?.environment == .sandbox ? 1 : 0, kb?.environment == .sandbox ? 1 : 0)
            return ea == eb ? a < b : ea < eb
        }
        let rows = keys.map { name -> [String] in
            let key = AppleLimitKey(description: name)
            let environment = key?.environment ?? .production
            let cap =
                environment == .sandbox
                ? budget.sandboxMaxRequestsPerHour
                    ?? SandboxLimits.requestsPerHour(production: budget.maxRequestsPerHour)
                : budget.maxRequestsPerHour
            let spent = budget.spentEndpoint == name ? " (spent)" : ""
            // The environment beside the endpoint, in one cell that wraps: the card stays narrow.
            return [
                "\(key.map { "\($0.endpoint)" } ?? name) (\(environment.rawValue))",
                "\(budget.grantedByEndpoint[name] ?? 0) / \(cap)\(spent)",
            ]
        }
        var note =
            "Requests this run spent, against the cap per endpoint and hour that every shard shares "
            + "(\(BudgetFigures.option(for: .production)) \(budget.maxRequestsPerHour)"
            + (budget.sandboxMaxRequestsPerHour.map { ", \(BudgetFigures.option(for: .sandbox)) \($0)" } ?? "")
            + ")."
        if let spent = budget.spentEndpoint {
            note +=
                " The night's budget for \(spent) was spent"
                + (budget.usersLeft.map { ": \($0) users left for the next night." } ?? ".")
        }
        return table("Apple request budget", ["Endpoint (environment)", "Spent / cap"], rows, note: note)
    }

    /// Users verified and left for the next night, per reason, in the order the night takes them.
    static func usersTable(_ users: [String: Int], left: [String: Int]) -> String {
        let order = DueReason.allCases.map(\.rawValue)
        let reasons = Set(users.keys).union(left.keys)
        let keys = order.filter(reasons.contains) + reasons.subtracting(order).sorted()
        let rows = keys.map { [$0, String(users[$0, default: 0]), String(left[$0, default: 0])] }
        let leftTotal = left.values.reduce(0, +)
        return table(
            "Users by reason", ["Reason", "Verified", "Left"], rows,
            note: "Left: users the night's queue held and did not verify (\(leftTotal)); they stay due and the "
                + "next night takes them again.")
    }
}
