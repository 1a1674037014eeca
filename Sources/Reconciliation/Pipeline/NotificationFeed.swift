import Dispatch
import Synchronization

/// What the night's notification read (`NotificationIntake`, on a thread of its own) tells the run's
/// reader while users are already asked: that a piece was stored (its users may now join the queue),
/// that Apple accepted the job's configuration (users may be asked), and that the read ended; and
/// what the queue's fill (`RunQueueFill`, on a thread of its own) tells it: that the queue grew.
///
/// Users wait for the configuration's answer because Apple's refusal must stop the run before any
/// correction is applied (exit 78); they do not wait for the rest of the history, whose pages are
/// requests like any other, sharing the lanes and the rate.
///
/// Threading: `stored`, `confirm` and `finish` are the intake's, `grew` the fill's; `take` and the
/// waits are the reader's (one thread waits at a time). Every call is safe from any thread.
final class NotificationFeed: Sendable {
    /// What the reader has not taken yet.
    struct News {
        /// A piece was stored since the last `take`: the queue takes the notified users again.
        var stored = false
        /// A dry run's notified users so far (a real run stored them as pending).
        var dryRunNotified: Set<String> = []
        /// The read ended: nothing more will be stored.
        var finished = false
    }

    private struct State {
        var news = News()
        var confirmed = false
        var error: (any Error)?
        var queueComplete = false
        /// Something arrived since the last `take`.
        var fresh = false
    }

    private let state = Mutex(State())
    /// Signalled on every change; waiters check their condition again (a signal may be stale).
    private let changed = DispatchSemaphore(value: 0)

    init() {}

    /// A piece was stored; a dry run adds the users it found named.
    func stored(dryRunNotified: Set<String>) {
        state.withLock {
            $0.news.stored = true
            $0.news.dryRunNotified.formUnion(dryRunNotified)
            $0.fresh = true
        }
        changed.signal()
    }

    /// Apple answered the default app's history without refusing the configuration (or the read had
    /// nothing to ask it).
    func confirm() {
        state.withLock { $0.confirmed = true }
        changed.signal()
    }

    /// The read ended, with `error` when it failed. Called once, after the run was told of a refusal.
    func finish(error: (any Error)? = nil) {
        state.withLock {
            $0.news.finished = true
            $0.news.stored = true
            $0.error = error
            $0.fresh = true
        }
        changed.signal()
    }

    /// The queue's fill queued more users, or ended.
    func grew() {
        state.withLock { $0.fresh = true }
        changed.signal()
    }

    /// What arrived since the last call; `finished` stays set once it was.
    func take() -> News {
        state.withLock { state in
            let news = state.news
            state.news.stored = false
            state.fresh = false
            return news
        }
    }

    /// The read's failure, once it ended.
    var error: (any Error)? { state.withLock { $0.error } }

    var isFinished: Bool { state.withLock { $0.news.finished } }

    /// Marks the queue complete (every notified user in it, its counts told); false when it already was.
    func completeQueue() -> Bool {
        state.withLock { state in
            defer { state.queueComplete = true }
            return !state.queueComplete
        }
    }

    /// Blocks until users may be asked: the configuration was confirmed, or the read ended.
    func waitUntilConfirmed() {
        wait { $0.confirmed || $0.news.finished }
    }

    /// Blocks until something arrived since the last `take`: a piece stored, the read's end, the
    /// queue grown.
    func waitForNews() {
        wait { $0.fresh }
    }

    func waitUntilFinished() {
        wait { $0.news.finished }
    }

    private func wait(until condition: (State) -> Bool) {
        while !state.withLock({ condition($0) }) { changed.wait() }
    }
}
