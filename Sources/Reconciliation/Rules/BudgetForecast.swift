/// Whether a night's request budget can take the users a run selected, told at the run's start so that
/// an operator hears of a sweep that cannot keep its promise before users go unverified for longer.
public enum BudgetForecast {
    /// Apple requests per selected user: Get Transaction History and, where needed, Get All Subscription
    /// Statuses, for one row per user (the figure the bench measures, docs/benchmarks.md).
    public static let requestsPerUser = 1.07

    /// The requests this shard's users need and the share of the night's budget that is theirs, when
    /// the first exceeds the second; nil when the budget suffices.
    /// - Parameters:
    ///   - limit: requests per endpoint per hour for every shard together.
    ///   - hours: how many hours' budgets the night may draw on (at least the one it starts in).
    public static func shortfall(users: Int, limit: Int, hours: Double, shardCount: Int) -> (
        needed: Int, available: Int
    )? {
        let needed = Int((Double(users) * requestsPerUser).rounded(.up))
        let available = Int(Double(limit) * max(1, hours.rounded(.up)) / Double(max(1, shardCount)))
        return needed > available ? (needed, available) : nil
    }
}
