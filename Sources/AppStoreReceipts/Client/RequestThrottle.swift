import Dispatch
import Synchronization

/// The two limits every verifyReceipt request passes, retries and re-routes included: the token bucket
/// (`--rate`) and the in-flight cap (`--concurrency`).
///
/// Threading: `withPermit` and `begin` are called from many threads at once and block the caller while
/// it waits for a slot; `end` never blocks.
public final class RequestThrottle: Sendable {
    public let bucket: TokenBucket
    public let maxInFlight: Int
    private let slots: DispatchSemaphore
    private let counters = Mutex((inFlight: 0, peak: 0))

    public init(bucket: TokenBucket, maxInFlight: Int) {
        precondition(maxInFlight >= 1, "maxInFlight must be at least 1")
        self.bucket = bucket
        self.maxInFlight = maxInFlight
        slots = DispatchSemaphore(value: maxInFlight)
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

    /// The two halves of `withDeferredPermit`, for a request whose answer arrives on another thread:
    /// waits for an in-flight slot, reserves a token and returns the wait for it. Every `begin` needs
    /// exactly one `end`, when the exchange is over.
    public func begin() -> Duration {
        slots.wait()
        let wait = bucket.reserve()
        counters.withLock { counters in
            counters.inFlight += 1
            counters.peak = max(counters.peak, counters.inFlight)
        }
        return wait
    }

    /// Frees the slot `begin` took.
    public func end() {
        counters.withLock { $0.inFlight -= 1 }
        slots.signal()
    }

    /// The most requests that were in flight at once so far.
    public var peakInFlight: Int { counters.withLock { $0.peak } }
}
