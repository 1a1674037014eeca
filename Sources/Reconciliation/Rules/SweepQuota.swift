import Foundation

/// How many of the users verified longest ago a run takes, so that every user is verified again at
/// least every `--sweep-days` D nights (CONTRACT §9 "Notification history").
///
/// Why `max(⌈U / D⌉, overdue)`: the sweep takes users oldest first (FIFO on the instant each was last
/// verified whole). A user just verified has at most U − 1 users ahead of them; at ⌈U / D⌉ a night,
/// D nights take all of them and the user too, so nobody waits more than D nights. After a full run
/// (everyone verified on one night) FIFO alone spreads them over the next D nights. `overdue`, the
/// users whose last verification is older than D − 1 days, repairs what FIFO at ⌈U / D⌉ cannot: a
/// missed night (two nights' share is due at once), or users arriving faster than the quota.
/// Notified and new users are verified as well, which only moves the sweep's head further.
public struct SweepQuota: Sendable, Equatable {
    /// U: the users the sweep covers (verified whole at least once, still holding a receipt).
    public var users: Int
    /// D: `--sweep-days`, at least 1.
    public var days: Int
    /// Users whose last verification is older than `overdueBefore(asOf:days:)`.
    public var overdue: Int

    public init(users: Int, days: Int, overdue: Int) {
        self.users = max(0, users)
        self.days = max(1, days)
        self.overdue = max(0, overdue)
    }

    /// q: the users the sweep takes tonight (never more than there are).
    public var quota: Int {
        min(users, max((users + days - 1) / days, overdue))
    }

    /// The instant before which a user's last verification is overdue: D − 1 days before `asOf`, so a
    /// user verified on the night D nights ago is taken tonight at the latest.
    public static func overdueBefore(asOf: Date, days: Int) -> Date {
        asOf.addingTimeInterval(-Double(max(1, days) - 1) * 86_400)
    }
}

/// Whether the night's request budget can pay for the sweep's promise: an estimate from the users
/// taken and the requests a user has cost lately, for the run's `sweep.budget_short` warning. The
/// history's pages are not counted: their endpoint has a budget of its own.
public struct SweepBudgetEstimate: Sendable, Equatable {
    /// Requests a user costs when no earlier run says (about one receipt each, a few users with more;
    /// docs/benchmarks.md has the measured cost per receipt).
    public static let defaultRequestsPerUser = 1.3

    /// Users the run takes: notified + new + the sweep's quota.
    public var users: Int
    /// Requests per user: the last run's that ran to the end (`RunStore.lastRequestsPerUser`).
    public var requestsPerUser: Double
    /// Requests the night's budget allows (for every shard together, divided as the caller sees fit).
    public var budget: Int

    public init(users: Int, requestsPerUser: Double?, budget: Int) {
        self.users = max(0, users)
        self.requestsPerUser =
            requestsPerUser.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
            ?? Self.defaultRequestsPerUser
        self.budget = max(0, budget)
    }

    /// The requests the run is expected to need.
    public var needed: Int {
        Int((Double(users) * requestsPerUser).rounded(.up))
    }

    /// The budget cannot keep `--sweep-days`: the run should warn.
    public var isShort: Bool { needed > budget }
}
