import AppStoreReceipts
import Foundation
import Synchronization

/// A clock that moves only when a test advances it, and runs the work scheduled on it as time passes
/// it, in order of due time, on the advancing thread: throttles, retry waits and a scripted transport
/// on it run exactly as on the real clock, in no real time and deterministically.
public final class VirtualClock: ThrottleClock {
    private struct Timer {
        let due: Duration
        let order: Int
        let work: @Sendable () -> Void
    }

    private struct State {
        var now = Duration.seconds(1000)
        var timers: [Timer] = []
        var scheduled = 0
    }

    private let state = Mutex(State())
    private let epoch: Date

    /// - Parameter epoch: the wall clock at the start (`Retry-After` dates are read against it).
    public init(epoch: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.epoch = epoch
    }

    public func now() -> Duration { state.withLock { $0.now } }

    public func wallClock() -> Date {
        let elapsed = now() - .seconds(1000)
        return epoch.addingTimeInterval(
            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.scheduled += 1
            state.timers.append(Timer(due: state.now + max(.zero, delay), order: state.scheduled, work: work))
        }
    }

    /// Moves time forward by `duration`, running every timer that falls due on the way at its instant
    /// (work scheduled by that work included, when it falls due in the span).
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now } + max(.zero, duration)
        while let timer = takeNext(dueBy: target) { timer.work() }
        state.withLock { $0.now = max($0.now, target) }
    }

    /// Runs what is due now (zero-delay work), without moving time.
    public func settle() { advance(by: .zero) }

    /// Timers not yet run.
    public var pendingTimers: Int { state.withLock { $0.timers.count } }

    private func takeNext(dueBy target: Duration) -> Timer? {
        state.withLock { state in
            guard
                let index = state.timers.indices.min(by: { a, b in
                    let (x, y) = (state.timers[a], state.timers[b])
                    return (x.due, x.order) < (y.due, y.order)
                }), state.timers[index].due <= target
            else { return nil }
            let timer = state.timers.remove(at: index)
            state.now = max(state.now, timer.due)
            return timer
        }
    }
}
