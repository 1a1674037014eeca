import Dispatch
import Synchronization

/// How far the fill of a run's queue (`RunQueueFill`) has reached: the queue holds every user up to
/// `through` (in `user_id` order) under the reason the whole fill would give it, so the paging may read
/// up to there while the rest is filled.
///
/// The queue takes it as it stands at each join (`RunQueue.takeNotified`) and pages no further than it
/// took it, so each range is joined by the notified users before it is paged: a user named while its
/// range was being filled is queued by the range, or by the join once the range is in.
///
/// Threading: the fill advances it from its own thread, the reader reads it; every call is safe from
/// any thread.
final class QueueFrontier: Sendable {
    struct State: Sendable, Equatable {
        /// The same position of the fill (whether it moved since a join took it): the counts come with the
        /// plan and the error with the end, both before the reader can see them.
        static func == (lhs: State, rhs: State) -> Bool {
            (lhs.through, lhs.isComplete, lhs.hasEnded) == (rhs.through, rhs.isComplete, rhs.hasEnded)
        }

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
