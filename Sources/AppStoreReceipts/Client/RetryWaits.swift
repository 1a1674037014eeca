import Dispatch
import Synchronization

/// The retry waits (backoffs, `Retry-After`) of one `VerifyReceiptClient`, and its stop: `stop` ends
/// every wait at once, and a wait begun afterwards ends as it begins.
///
/// Why not a bare `asyncAfter`: a work item scheduled minutes ahead cannot be run early, and a run that
/// got SIGTERM must not sit out a server's `Retry-After` before it can exit.
///
/// Threading: every method may be called from any thread; `sleep` blocks the calling lane. Each wait's
/// work runs exactly once, told whether the wait was cut short.
final class RetryWaits: Sendable {
    private struct State {
        var stopped = false
        var nextID = 0
        /// Timers not yet fired, by id.
        var pending: [Int: @Sendable (_ stopped: Bool) -> Void] = [:]
    }

    private let state = Mutex(State())
    /// Entered at creation and left by `stop`: what blocking sleeps wait on.
    private let stopLatch = DispatchGroup()
    /// Where timers fire: a serial queue of the client's own, so that a burst of retries due at once
    /// never takes threads from `DispatchQueue.global()` (DESIGN, "Concurrency on Linux").
    private let queue = DispatchQueue(label: "receipt-recon.verify-receipt.retries")

    init() { stopLatch.enter() }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Runs `work(false)` on the queue once `delay` has passed, or `work(true)` as soon as the client
    /// stops (at once when it already has).
    func after(_ delay: Duration, _ work: @escaping @Sendable (_ stopped: Bool) -> Void) {
        let id = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            state.nextID += 1
            state.pending[state.nextID] = work
            return state.nextID
        }
        guard let id else { return work(true) }
        queue.asyncAfter(deadline: Self.deadline(after: delay)) { [self] in
            // Gone when `stop` took it first; the timer itself cannot be cancelled, only outrun.
            guard let work = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
            work(false)
        }
    }

    /// `after(_:_:)` on the real clock; with a test's fake clock the wait is slept out on it, here.
    func after(
        _ delay: Duration, on clock: any ThrottleClock, _ work: @escaping @Sendable (_ stopped: Bool) -> Void
    ) {
        guard clock is SystemThrottleClock, delay > .zero else {
            if delay > .zero { clock.sleep(for: delay) }
            return work(isStopped)
        }
        after(delay, work)
    }

    /// Blocks the calling lane for `delay`. - Returns: false when the client stopped first (or had).
    func sleep(for delay: Duration) -> Bool {
        stopLatch.wait(timeout: Self.deadline(after: delay)) == .timedOut
    }

    /// Ends every wait: pending timers run their work now, told they were stopped.
    func stop() {
        let cut = state.withLock { state -> [@Sendable (Bool) -> Void]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        guard let cut else { return }
        stopLatch.leave()
        for work in cut { work(true) }
    }

    /// `delay` from now, clamped to a day: a longer wait is a configuration mistake, and nanoseconds of
    /// a huge `Duration` would overflow `Int`.
    static func deadline(after delay: Duration) -> DispatchTime {
        let clamped = min(max(delay, .zero), .seconds(86_400))
        let (seconds, attoseconds) = clamped.components
        return .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
