/// How many attempts one receipt may use.
public struct VerifyReceiptRetryBudget: Hashable, Sendable {
    /// Attempts per endpoint for retryable failures (CONTRACT `--max-attempts`, default 4).
    public var maxAttempts: Int
    /// How many 21002 answers a receipt may get before the job stops asking. Smaller than
    /// `maxAttempts` because 21002 is usually a receipt that will never parse; it is retried
    /// at all only because Apple has answered 21002 to valid receipts during outages.
    public var maxMalformedReceiptAttempts: Int

    /// Values below 1 are raised to 1 (one attempt, no retry).
    public init(maxAttempts: Int = 4, maxMalformedReceiptAttempts: Int = 2) {
        self.maxAttempts = max(1, maxAttempts)
        self.maxMalformedReceiptAttempts = max(1, maxMalformedReceiptAttempts)
    }
}
