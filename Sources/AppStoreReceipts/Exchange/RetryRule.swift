/// Whether and when a request that failed transiently is sent again: the one rule both of Apple's
/// services follow. The attempt caps (`--max-attempts`, and any tighter limit a cause sets) and the
/// longest wait (`--max-retry-wait`) come from the budget; the wait itself is the backoff's, or the
/// server's `Retry-After` when that asks for longer.
public struct RetryRule: Sendable {
    public var budget: VerifyReceiptRetryBudget
    public var backoff: BackoffPolicy

    public init(budget: VerifyReceiptRetryBudget = VerifyReceiptRetryBudget(), backoff: BackoffPolicy = BackoffPolicy())
    {
        self.budget = budget
        self.backoff = backoff
    }

    /// What comes after attempt `attempt` (1-based) failed.
    /// - Parameters:
    ///   - limit: a cap tighter than `--max-attempts` for this cause, if any.
    ///   - retryAfter: the server's `Retry-After`, if it sent one.
    public func plan(afterAttempt attempt: Int, limit: Int = .max, retryAfter: Duration?) -> RetryPlan {
        switch budget.permission(afterAttempt: attempt, limit: limit, retryAfter: retryAfter) {
        case .attemptsSpent: return .attemptsSpent
        case .waitTooLong: return .waitTooLong
        case .granted: return .retry(after: delay(afterAttempt: attempt, retryAfter: retryAfter))
        }
    }

    /// The wait before the retry of attempt `attempt`, once the budget allowed it.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration {
        backoff.delay(afterAttempt: attempt, retryAfter: retryAfter, limit: budget.maxWait)
    }
}

/// `RetryRule.plan`'s answer.
public enum RetryPlan: Sendable, Equatable {
    case retry(after: Duration)
    /// No attempt is left.
    case attemptsSpent
    /// The server asks to wait longer than `--max-retry-wait`: this run does not wait that long.
    case waitTooLong
}

extension VerifyReceiptRetryBudget {
    /// Whether the budget allows another attempt after attempt `attempt` failed: attempts first (also
    /// against `limit`), then the server's `Retry-After` against `maxWait`.
    public func permission(afterAttempt attempt: Int, limit: Int = .max, retryAfter: Duration?) -> RetryPermission {
        guard attempt < min(maxAttempts, limit) else { return .attemptsSpent }
        if let retryAfter, retryAfter > maxWait { return .waitTooLong }
        return .granted
    }
}

/// `VerifyReceiptRetryBudget.permission`'s answer.
public enum RetryPermission: Sendable, Equatable {
    case granted
    case attemptsSpent
    case waitTooLong
}
