import Dispatch
import Synchronization

/// How far the fill of a run's queue (`RunQueueFill`) has reached: the queue holds every user up to
/// `through` (in `user_id` order) under the reason the whole fill would give it, so the paging may read
/// up to there while the rest is filled.
///
/// It also keeps the fill's ranges and the queue's joins apart (`exclusive`): a user named by a piece
/// stored meanwhile is queued either by the range that reads it or by the join that follows the
/// range, never missed between the two.
///
/// Threading: the fill advances it from its own thread, the reader reads it; every call is safe from
/// any thread.
final class QueueFrontier: Sendable {
    struct State: Sendable {
        /// Every queued user up to here (inclusive) is in the queue; "" before the first range.
        var through = ""
        /// The fill reached the last user: the queue is whole.
        var isComplete = false
        /// The fill stopped: whole, failed (`error`) or interrupted by a signal.
        var hasEnded = false
        var error: (any Error)?
        /// The fill's counts (the sweep's quota and coverage), once it planned.
        var counts: RunQueueCounts?

        /// Ended before the queue was whole.
        var endedShort: Bool { hasEnded && !isComplete }
    }

    private let state: Mutex<State>
    private let serial = Mutex(())
    private let ended = DispatchSemaphore(value: 0)
    /// Told after every change, so that a reader waiting for users wakes (`NotificationFeed.grew`).
    private let onChange: @Sendable () -> Void

    /// A frontier of a queue filled whole already (`RunQueue.fill`, or a queue read back).
    static func complete() -> QueueFrontier {
        let frontier = QueueFrontier()
        frontier.end()
        frontier.state.withLock { $0.isComplete = true }
        return frontier
    }

    init(onChange: @escaping @Sendable () -> Void = {}) {
        state = Mutex(State())
        self.onChange = onChange
    }

    var current: State { state.withLock { $0 } }

    /// Runs `body` with no range of the fill in progress (and none beginning until it returns).
    func exclusive<T>(_ body: () throws -> T) rethrows -> T {
        try serial.withLock { _ in try body() }
    }

    func planned(_ counts: RunQueueCounts) {
        state.withLock { $0.counts = counts }
    }

    /// The queue now holds every user up to `through`; nil: up to the last.
    func advanced(through: String?) {
        state.withLock { state in
            if let through { state.through = through } else { state.isComplete = true }
        }
        onChange()
    }

    /// The fill stopped (once); `error` when it failed.
    func end(error: (any Error)? = nil) {
        state.withLock { state in
            state.hasEnded = true
            state.error = error
        }
        ended.signal()
        onChange()
    }

    /// Blocks until the fill stopped.
    func waitUntilEnded() {
        while !state.withLock({ $0.hasEnded }) { ended.wait() }
        ended.signal()
    }
}
