import Synchronization

/// A token bucket: on average `rate` permits per second, at most `burst` at once after a quiet spell.
/// So no one-second window ever holds more than `rate + burst` permits.
///
/// Waiters reserve their token under the lock (the balance may go negative, which queues them in
/// order) and sleep after releasing it, so no thread ever sleeps while holding the lock.
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

    /// Takes one permit, blocking the calling thread until it is due.
    public func acquire() {
        sleep(for: reserve())
    }

    /// Sleeps out a wait `reserve` returned, on the bucket's clock.
    func sleep(for wait: Duration) {
        if wait > .zero { clock.sleep(for: wait) }
    }

    /// Reserves one permit and returns how long the caller must wait before using it.
    func reserve() -> Duration {
        let now = clock.now()
        return state.withLock { state in
            let elapsed = now - state.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            state.tokens = min(burst, state.tokens + seconds * rate)
            state.updated = now
            state.tokens -= 1
            guard state.tokens < 0 else { return .zero }
            return .nanoseconds(Int64((-state.tokens / rate * 1e9).rounded(.up)))
        }
    }
}
