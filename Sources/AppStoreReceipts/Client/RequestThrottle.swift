import Dispatch
import Synchronization

/// The two limits every request to Apple passes, retries and re-routes included: the token bucket
/// (`--rate`) and the in-flight cap (`--concurrency`). A Server API request takes its token from its
/// endpoint's own bucket instead (`begin(tokenFrom:then:)`), as Apple limits each endpoint apart.
///
/// A request that finds every slot taken either blocks its thread (`begin()`, `withPermit`) or, for the
/// job's lanes, queues a continuation (`begin(then:)`) that the request ending next starts on its own
/// thread, at once. So with more lanes than slots a freed slot is used again without waiting for a lane
/// to come round: the cap, not the lanes' turnaround, bounds what is in flight.
///
/// Threading: every method may be called from any thread. `withPermit` and `begin()` block while they
/// wait for a slot; `begin(then:)` and `end` never block (`end` may run a queued continuation).
public final class RequestThrottle: Sendable {
    public let bucket: TokenBucket
    public let maxInFlight: Int

    private struct State {
        var inFlight = 0
        var peak = 0
        /// Requests waiting for a slot, in order of arrival, with the bucket each takes its token from.
        var waiting = FIFOBuffer<(bucket: TokenBucket, start: @Sendable (Duration) -> Void)>()

        mutating func take() {
            inFlight += 1
            peak = max(peak, inFlight)
        }
    }

    private let state = Mutex(State())

    public init(bucket: TokenBucket, maxInFlight: Int) {
        precondition(maxInFlight >= 1, "maxInFlight must be at least 1")
        self.bucket = bucket
        self.maxInFlight = maxInFlight
    }

    /// Waits for an in-flight slot, then for a token, runs `send`, and frees the slot.
    /// The slot is taken first so that a token is never spent by a request that then queues.
    public func withPermit<T>(_ send: () throws -> T) rethrows -> T {
        try withDeferredPermit { wait in
            bucket.sleep(for: wait)
            return try send()
        }
    }

    /// Like `withPermit`, but hands `send` the wait for the token instead of sleeping it out, for a
    /// transport that can start the request at that time itself. The token is reserved either way, so
    /// the rate holds as long as `send` starts no sooner than told.
    public func withDeferredPermit<T>(_ send: (_ wait: Duration) throws -> T) rethrows -> T {
        let wait = begin()
        defer { end() }
        return try send(wait)
    }

    /// Waits for an in-flight slot, reserves a token and returns the wait for it. Every `begin` needs
    /// exactly one `end`, when the exchange is over.
    public func begin() -> Duration {
        let granted = DispatchSemaphore(value: 0)
        let wait = Mutex<Duration>(.zero)
        begin { reserved in
            wait.withLock { $0 = reserved }
            granted.signal()
        }
        granted.wait()
        return wait.withLock { $0 }
    }

    /// Takes an in-flight slot and reserves a token, then calls `start` with the wait for the token:
    /// at once on this thread when a slot is free, else on the thread of the `end` that frees one.
    /// `start` must not block. Every `begin` needs exactly one `end`, when the exchange is over.
    public func begin(then start: @escaping @Sendable (_ wait: Duration) -> Void) {
        begin(tokenFrom: bucket, then: start)
    }

    /// `begin(then:)` with the token taken from `bucket` instead of this throttle's own: the App Store
    /// Server API limits each endpoint separately, while the in-flight cap is the run's.
    public func begin(tokenFrom bucket: TokenBucket, then start: @escaping @Sendable (_ wait: Duration) -> Void) {
        let granted = state.withLock { state -> Bool in
            guard state.inFlight < maxInFlight else {
                state.waiting.append((bucket, start))
                return false
            }
            state.take()
            return true
        }
        if granted { start(bucket.reserve()) }
    }

    /// Frees the slot `begin` took, or hands it straight to the first request waiting for one.
    public func end() {
        let next = state.withLock { state -> (bucket: TokenBucket, start: @Sendable (Duration) -> Void)? in
            state.inFlight -= 1
            guard let next = state.waiting.popFirst() else { return nil }
            state.take()
            return next
        }
        if let next { next.start(next.bucket.reserve()) }
    }

    /// The most requests that were in flight at once so far.
    public var peakInFlight: Int { state.withLock { $0.peak } }
}
