/// How much one receipt may spend: attempts, and the longest wait between two of them.
public struct VerifyReceiptRetryBudget: Hashable, Sendable {
    /// Attempts per endpoint for retryable failures (CONTRACT `--max-attempts`, default 4).
    public var maxAttempts: Int
    /// How many 21002 answers a receipt may get before the job stops asking. Smaller than
    /// `maxAttempts` because 21002 is usually a receipt that will never parse; it is retried
    /// at all only because Apple has answered 21002 to valid receipts during outages.
    public var maxMalformedReceiptAttempts: Int
    /// The longest wait before a retry (`--max-retry-wait`): a `Retry-After` asking for more ends the
    /// receipt `unverified` for this run instead of holding its lane (a server that says "come back in
    /// three years" would otherwise stall the night), and backoffs never exceed it either.
    public var maxWait: Duration

    /// `--max-retry-wait`'s default: a few minutes, far more than the pause a throttled server usually
    /// asks for (seconds, a minute), and short enough that no lane sits out the night behind one answer.
    public static let defaultMaxWait = Duration.seconds(300)

    /// Attempt counts below 1 are raised to 1 (one attempt, no retry); a negative wait is zero.
    public init(
        maxAttempts: Int = 4, maxMalformedReceiptAttempts: Int = 2, maxWait: Duration = Self.defaultMaxWait
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.maxMalformedReceiptAttempts = max(1, maxMalformedReceiptAttempts)
        self.maxWait = max(.zero, maxWait)
    }
}
