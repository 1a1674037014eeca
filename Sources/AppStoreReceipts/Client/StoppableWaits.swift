import Synchronization

/// Waits that a stop ends at once: the retry backoffs and `Retry-After`s of the exchange driver, and
/// the token waits of a transport that cannot start a request at an instant itself. `stop` runs every
/// pending wait's work now, told it was stopped, and a wait begun afterwards ends as it begins.
///
/// Why not the clock's timer alone: a timer scheduled minutes ahead cannot be run early, and a run
/// that got SIGTERM must not sit out a server's `Retry-After` before it can exit.
///
/// Threading: every method may be called from any thread; each wait's work runs exactly once, on the
/// clock's timer thread or on the thread that calls `stop`.
public final class StoppableWaits: Sendable {
    private struct State {
        var stopped = false
        var nextID = 0
        /// Waits not yet over, by id.
        var pending: [Int: @Sendable (_ stopped: Bool) -> Void] = [:]
    }

    private let clock: any ThrottleClock
    private let state = Mutex(State())

    public init(clock: any ThrottleClock) { self.clock = clock }

    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Runs `work(false)` once `delay` has passed on the clock, or `work(true)` as soon as the waits
    /// stop (at once when they already have).
    public func after(_ delay: Duration, _ work: @escaping @Sendable (_ stopped: Bool) -> Void) {
        let id = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            state.nextID += 1
            state.pending[state.nextID] = work
            return state.nextID
        }
        guard let id else { return work(true) }
        clock.schedule(after: delay) { [self] in
            // Gone when `stop` took it first; the timer itself cannot be cancelled, only outrun.
            guard let work = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
            work(false)
        }
    }

    /// Ends every wait: pending work runs now, told it was stopped.
    public func stop() {
        let cut = state.withLock { state -> [@Sendable (Bool) -> Void]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for work in cut ?? [] { work(true) }
    }
}
