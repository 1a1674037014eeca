import Synchronization

/// Exponential backoff with full jitter: before attempt n+1 wait a uniform random time in
/// [0, min(cap, base × 2^(n-1))]. A server's `Retry-After` wins when it asks for longer, and no wait
/// exceeds the caller's limit (the retry budget's `maxWait`).
///
/// Full jitter spreads the retries of many lanes that failed together (Apple outages hit every lane
/// at once), so they do not come back in lockstep.
public struct BackoffPolicy: Sendable {
    public var base: Duration
    public var cap: Duration
    private let random: RandomSource

    public init(base: Duration = .milliseconds(500), cap: Duration = .seconds(30), seed: UInt64? = nil) {
        self.base = base
        self.cap = cap
        random = RandomSource(seed: seed)
    }

    /// The wait before the attempt after `attempt` (1-based) failed transiently, at most `limit`. A
    /// `retryAfter` above `limit` never gets here: the classifier ends such a receipt instead.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, limit: Duration) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(cap, base * (1 << exponent))
        let jittered = ceiling * random.unit()
        return min(max(jittered, retryAfter ?? .zero), limit)
    }
}

/// A thread-safe uniform [0, 1) source; seeded (`SplitMix64`) for reproducible tests.
final class RandomSource: Sendable {
    private let generator: Mutex<SplitMix64?>

    init(seed: UInt64?) { generator = Mutex(seed.map(SplitMix64.init(seed:))) }

    func unit() -> Double {
        generator.withLock { generator in
            guard generator != nil else { return Double.random(in: 0..<1) }
            return generator!.unit()
        }
    }
}
