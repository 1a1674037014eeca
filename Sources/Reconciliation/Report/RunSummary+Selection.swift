import AppStoreReceipts
import CivilTime
import Foundation

/// What a night driven by Apple's notification history read (CONTRACT §9 "Notification history").
public struct NotificationFigures: Sendable, Codable, Equatable {
    /// Notifications whose signature, chain and nested data verified (a record read twice counts twice).
    public var read = 0
    /// Of those, the ones the job had not stored before.
    public var stored = 0
    /// Records that failed verification or that Apple's verifier refuses (another app, Apple ID or
    /// environment), or carried no UUID or signed date: never believed, never acted on.
    public var rejected = 0
    /// New notifications of a transaction no stored row holds (the `notifications_unmatched` export).
    public var unmatched = 0
    /// Notifications every delivery of which to the app failed: changes its webhook missed.
    public var deliveryFailed = 0
    /// Users the notifications named.
    public var users = 0
    public var pages = 0
    /// Notification types this build does not know, and how many of each (kept, not fatal).
    public var unknownTypes: [String: Int] = [:]
    /// The span read whole this run; nil when nothing was read.
    public var from: Date?
    public var through: Date?
    /// Why a span was left for the next run to read again (a page failed, the run stopped).
    public var incomplete: String?
    /// Why nothing was read (another shard of the set had just read up to now).
    public var skipped: String?

    public init() {}
}

/// The Apple request budget a run drew on: the ceiling for every shard together, what this run was
/// granted per endpoint, and, when an endpoint's night was spent, which one and the users left.
public struct BudgetFigures: Sendable, Codable, Equatable {
    public var maxRequestsPerHour: Int
    /// The sandbox's own ceiling (`--sandbox-max-requests-per-hour`); its grants are in
    /// `grantedByEndpoint` as `sandbox/` and the endpoint.
    public var sandboxMaxRequestsPerHour: Int?
    public var grantedByEndpoint: [String: Int] = [:]
    public var spentEndpoint: String?
    public var usersLeft: Int?

    public init(maxRequestsPerHour: Int) {
        self.maxRequestsPerHour = maxRequestsPerHour
    }

    /// The setting that sets `environment`'s ceiling.
    public static func option(for environment: AppStoreEnvironment) -> String {
        environment == .sandbox ? "--sandbox-max-requests-per-hour" : "--max-requests-per-hour"
    }

    /// The summary line of a run that spent its budget (`RunEnd.budgetSpent`'s reason).
    public static func spentLine(limit: Int, key: AppleLimitKey, usersLeft: Int?) -> String {
        "budget: \(option(for: key.environment)) \(limit) spent for \(key); "
            + (usersLeft.map { "\($0) users left" } ?? "the users not taken are left") + " for the next night"
    }

    /// Why `verify-user` verified nothing: the shard set's hour was spent before its user was answered whole.
    public static func spentForUserLine(limit: Int, key: AppleLimitKey) -> String {
        let option = option(for: key.environment)
        return "budget: \(option) \(limit) spent for \(key) this hour; the user was not verified "
            + "(nothing written): try again after the hour, or raise \(option)"
    }
}

extension RunSummary {
    /// The lines of `text` about what the night read from Apple's history and whom it took.
    var selectionLines: [String] {
        var lines: [String] = []
        if let figures = notifications {
            var line =
                "Notifications: \(figures.read) read (\(figures.stored) new) in \(figures.pages) pages, "
                + "\(figures.rejected) rejected, \(figures.unmatched) unmatched, "
                + "\(figures.deliveryFailed) never delivered to the app; \(figures.users) users named"
            if let through = figures.through {
                line += "; read through \(Instant.formatSeconds(through))"
            }
            lines.append(line)
            if !figures.unknownTypes.isEmpty {
                lines.append("  unknown types kept: " + Self.list(figures.unknownTypes))
            }
            if let incomplete = figures.incomplete { lines.append("  left for the next run: \(incomplete)") }
            if let skipped = figures.skipped { lines.append("  not read: \(skipped)") }
        }
        if let users = usersByReason {
            let order = DueReason.allCases.map(\.rawValue)
            lines.append("Users verified by reason: " + Self.list(users, order: order))
            if let left = usersLeftByReason, !left.isEmpty {
                lines.append("  left for the next night: " + Self.list(left, order: order))
            }
        }
        if let requests = requestsByReason, !requests.isEmpty {
            lines.append(
                "  Apple requests by reason: " + Self.list(requests, order: DueReason.allCases.map(\.rawValue)))
        }
        if let budget {
            let sandbox = budget.sandboxMaxRequestsPerHour.map { " (sandbox: \($0))" } ?? ""
            lines.append(
                "Budget: \(budget.maxRequestsPerHour) requests per endpoint per hour\(sandbox) for all shards; "
                    + "granted to this run: " + Self.list(budget.grantedByEndpoint))
        }
        return lines
    }
}
