import Synchronization

/// The simulator's rate limit: a token bucket refilled at `rate` tokens per second, holding at most
/// `burst`. A request that finds no token is answered 429 with `Retry-After` (whole seconds until the
/// next token, at least 1) and does not consume one.
///
/// Threading: `Sendable`; `admit` takes a `Mutex` for a few arithmetic operations and never sleeps.
public final class RateLimiter: Sendable {
    public let rate: Double
    public let burst: Double
    private struct State {
        var tokens: Double
        var last: ContinuousClock.Instant
    }
    private let state: Mutex<State>

    public init(rate: Double, burst: Double? = nil) {
        precondition(rate > 0)
        self.rate = rate
        self.burst = max(1, burst ?? rate)
        state = Mutex(State(tokens: max(1, burst ?? rate), last: .now))
    }

    /// Takes a token, or returns how long until one is available.
    public func admit(now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in
            let elapsed = now - state.last
            if elapsed > .zero {
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                state.tokens = min(burst, state.tokens + seconds * rate)
                state.last = now
            }
            if state.tokens >= 1 {
                state.tokens -= 1
                return nil
            }
            return .nanoseconds(Int64(((1 - state.tokens) / rate * 1e9).rounded(.up)))
        }
    }

    /// `Retry-After` for a wait: whole seconds, rounded up, at least 1.
    public static func retryAfterSeconds(_ wait: Duration) -> Int {
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18
        return max(1, Int(seconds.rounded(.up)))
    }
}
