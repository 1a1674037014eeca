import Foundation

/// Time for the throttle and the retry backoff, so tests can run on a fake clock that never sleeps.
///
/// Threading: called concurrently from every lane; implementations must be thread-safe.
public protocol ThrottleClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    func now() -> Duration
    /// Blocks the calling thread for `duration` (lanes only; never a global-queue thread).
    func sleep(for duration: Duration)
    /// Wall-clock time, for `Retry-After` HTTP dates.
    func wallClock() -> Date
}

/// The real clock: `CLOCK_MONOTONIC` and `nanosleep`.
public struct SystemThrottleClock: ThrottleClock {
    public init() {}

    public func now() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    public func sleep(for duration: Duration) {
        guard duration > .zero else { return }
        let components = duration.components
        var request = timespec(tv_sec: Int(components.seconds), tv_nsec: Int(components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }

    public func wallClock() -> Date { Date() }
}
