/// How many requests the run may still send to each of Apple's endpoints in each environment: the
/// ceilings of the whole shard set (`--max-requests-per-hour`, and the sandbox's own
/// `--sandbox-max-requests-per-hour`), asked once for every request the driver sends (questions,
/// retries, hops and continuations alike), so that what was granted is what was sent.
///
/// Threading: `take` is called on the thread the driver performs an exchange's step on, which is the
/// run's own (a worker, or the thread that started the exchange), never the transport's loop nor a
/// thread of `DispatchQueue.global()`. It may block that thread briefly (one database round trip now
/// and then); it never waits out a window itself: it answers `.wait` and the driver waits.
public protocol RequestBudget: Sendable {
    /// One request counted against `limit` (an endpoint in an environment), sent for `purpose`:
    /// granted, or why not.
    func take(_ limit: AppleLimitKey, purpose: RequestPurpose) -> BudgetAnswer
}

/// What the budget says to one request.
public enum BudgetAnswer: Sendable, Equatable {
    /// Send it: the request is counted against the budget.
    case granted
    /// The endpoint's budget for this window is used up, but the run may wait for the next window:
    /// ask again after `seconds` (a signal ends the wait, like a backoff). Nothing was counted.
    case wait(seconds: Double)
    /// The endpoint's budget for this run is used up (or can no longer be counted): the request is
    /// not sent, the exchange finishes with what it has, and the run stops taking users, finishes
    /// what is in flight and ends.
    case spent
}

extension RequestBudget {
    /// One request to `endpoint` in production.
    public func take(_ endpoint: AppleEndpoint, purpose: RequestPurpose) -> BudgetAnswer {
        take(AppleLimitKey(endpoint, .production), purpose: purpose)
    }
}
