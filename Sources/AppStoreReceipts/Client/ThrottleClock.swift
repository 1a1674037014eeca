import Dispatch
import Foundation

/// Time for the throttle, the retry waits and the transports' start instants: the real clock in
/// production, a virtual one in tests (`TestSupport.VirtualClock`), which moves only when a test
/// advances it and runs what is due then. Nothing here blocks a thread: waits are scheduled work.
///
/// Threading: called concurrently from every thread of the run; implementations must be thread-safe.
public protocol ThrottleClock: Sendable {
    /// Monotonic time since an arbitrary origin: the scale of every instant handed between the
    /// throttle, the exchange driver and the transports.
    func now() -> Duration
    /// Wall-clock time, for `Retry-After` HTTP dates.
    func wallClock() -> Date
    /// Runs `work` once `delay` has passed, on a thread of the clock's that must not be blocked (the
    /// work hands anything long elsewhere). Not cancellable: `StoppableWaits` outruns it instead.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void)
}

/// The real clock: `CLOCK_MONOTONIC`, with timers on one serial queue of the process's own, so that a
/// burst of waits ending together never takes threads from `DispatchQueue.global()` (DESIGN,
/// "Concurrency on Linux").
public struct SystemThrottleClock: ThrottleClock {
    private static let timers = DispatchQueue(label: "receipt-recon.timers")

    public init() {}

    public func now() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    public func wallClock() -> Date { Date() }

    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        Self.timers.asyncAfter(deadline: Self.deadline(after: delay), execute: work)
    }

    /// `delay` from now, clamped to a day: a longer wait is a configuration mistake, and nanoseconds of
    /// a huge `Duration` would overflow `Int`.
    static func deadline(after delay: Duration) -> DispatchTime {
        let clamped = min(max(delay, .zero), .seconds(86_400))
        let (seconds, attoseconds) = clamped.components
        return .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
