import Synchronization

/// A token bucket: on average `rate` permits per second, at most `burst` at once after a quiet spell.
/// So no one-second window ever holds more than `rate + burst` permits.
///
/// A request reserves its token under the lock (the balance may go negative, which queues them in
/// order) and is told the instant the token is due; nobody sleeps on the bucket: the transport starts
/// the request at that instant.
public final class TokenBucket: Sendable {
    public let rate: Double
    public let burst: Double
    private let clock: any ThrottleClock
    private let state: Mutex<(tokens: Double, updated: Duration)>

    /// - Parameters:
    ///   - rate: permits per second, > 0.
    ///   - burst: bucket size, ≥ 1; the bucket starts full.
    public init(rate: Double, burst: Double, clock: any ThrottleClock = SystemThrottleClock()) {
        precondition(rate > 0 && burst >= 1, "rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self.clock = clock
        state = Mutex((tokens: burst, updated: clock.now()))
    }

    /// The bucket the job uses for `--rate R`: a burst of 5 % of R (at least 1) absorbs scheduling
    /// jitter without letting a second exceed R by much.
    public convenience init(rate: Double, clock: any ThrottleClock = SystemThrottleClock()) {
        self.init(rate: rate, burst: max(1, (rate * 0.05).rounded(.down)), clock: clock)
    }

    /// Reserves one permit and returns the instant on the bucket's clock when it may be used: now, or
    /// later when the bucket is empty.
    public func reserve() -> Duration {
        let now = clock.now()
        return state.withLock { state in
            let elapsed = now - state.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            state.tokens = min(burst, state.tokens + seconds * rate)
            state.updated = now
            state.tokens -= 1
            guard state.tokens < 0 else { return now }
            return now + .nanoseconds(Int64((-state.tokens / rate * 1e9).rounded(.up)))
        }
    }
}
