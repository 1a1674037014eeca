import Synchronization

/// The two limits every request to Apple passes, retries and re-routes included: a token bucket
/// (`--rate`; the App Store Server API has one per endpoint, as Apple limits each endpoint apart) and
/// the run's in-flight cap (`--concurrency`).
///
/// A request that finds every slot taken queues its continuation, which the request ending next starts
/// on its own thread, at once. So with more lanes than slots a freed slot is used again without waiting
/// for a lane to come round: the cap, not the lanes' turnaround, bounds what is in flight. Nothing here
/// blocks: the token's wait is handed on as an instant for the transport to start the request at.
///
/// Threading: every method may be called from any thread; `end` may run a queued continuation.
public final class RequestThrottle: Sendable {
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

    public init(maxInFlight: Int) {
        precondition(maxInFlight >= 1, "maxInFlight must be at least 1")
        self.maxInFlight = maxInFlight
    }

    /// Takes an in-flight slot, then reserves a token from `bucket` (the slot first, so that a token is
    /// never spent by a request that then queues), and calls `start` with the instant the token is due:
    /// at once on this thread when a slot is free, else on the thread of the `end` that frees one.
    /// `start` must not block. Every `begin` needs exactly one `end`, when the exchange is over.
    public func begin(tokenFrom bucket: TokenBucket, then start: @escaping @Sendable (_ notBefore: Duration) -> Void) {
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
