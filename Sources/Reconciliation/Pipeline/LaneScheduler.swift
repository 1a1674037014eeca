import AppStoreReceipts
import Foundation
import Synchronization

/// The job's lanes, without a thread each: at most `lanes` users in flight, each verified one receipt
/// at a time, and a bounded queue of users waiting for a lane.
///
/// A lane is a turn to run a user, not a thread: whichever thread frees a lane (a worker finishing a
/// user) takes the next queued user for it, and the reader runs a user itself when it finds a lane idle.
/// Neither waits for the other, so no thread is woken per user. The reader blocks only while the queue is
/// full, and is woken once it has drained to `refill`, which keeps memory flat as `BlockingQueue` does.
///
/// Threading: `admit` is the reader's (it may block), `next` the lanes', from any thread (never blocks).
final class LaneScheduler<Work: Sendable>: Sendable {
    /// What `admit` did with a user.
    enum Admission {
        /// A lane was idle: the caller runs the user now, on its own thread.
        case run(Work)
        /// Queued for the next free lane.
        case queued
        /// The scheduler is closed; the user was dropped.
        case closed
    }

    private struct State {
        var queue = FIFOBuffer<Work>()
        var idleLanes: Int
        var closed = false
        var producerSleeping = false
        var idleWaiters = 0
        var count: Int { queue.count }
    }

    private let state: Mutex<State>
    private let lanes: Int
    private let capacity: Int
    private let refill: Int
    private let producerBell = DispatchSemaphore(value: 0)
    private let idleBell = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - lanes: users in flight at most (`--concurrency`).
    ///   - capacity: users queued at most; `refill`: the blocked reader wakes when this few are left
    ///     (default half: the reader's pages are cheaper in bulk).
    init(lanes: Int, capacity: Int, refill: Int? = nil) {
        precondition(lanes >= 1 && capacity >= 1, "a scheduler needs a lane and room to queue")
        self.lanes = lanes
        self.capacity = capacity
        self.refill = min(capacity - 1, max(0, refill ?? capacity / 2))
        state = Mutex(State(idleLanes: lanes))
    }

    /// Gives `work` a lane, or queues it, waiting while the queue is full.
    func admit(_ work: Work) -> Admission {
        while true {
            let admission = state.withLock { state -> Admission? in
                if state.closed { return .closed }
                if state.idleLanes > 0 {
                    state.idleLanes -= 1
                    return .run(work)
                }
                guard state.count < capacity else {
                    state.producerSleeping = true
                    return nil
                }
                state.queue.append(work)
                return .queued
            }
            if let admission { return admission }
            producerBell.wait()
        }
    }

    /// A lane finished its user: the next queued user for it, or nil, and the lane is idle.
    func next() -> Work? {
        let (work, wakeProducer, wakeIdleWaiters) = state.withLock { state -> (Work?, Bool, Int) in
            if let work = state.queue.popFirst() {
                let wake = state.producerSleeping && state.count <= refill
                if wake { state.producerSleeping = false }
                return (work, wake, 0)
            }
            state.idleLanes += 1
            // Blocked on a full queue that has just emptied: possible only with a refill of 0.
            let wake = state.producerSleeping
            state.producerSleeping = false
            guard state.idleLanes == lanes, state.closed else { return (nil, wake, 0) }
            defer { state.idleWaiters = 0 }
            return (nil, wake, state.idleWaiters)
        }
        if wakeProducer { producerBell.signal() }
        for _ in 0..<wakeIdleWaiters { idleBell.signal() }
        return work
    }

    /// No more users: the queued ones still get their lanes. Wakes a reader blocked in `admit`.
    func close() {
        let wake = state.withLock { state -> Bool in
            state.closed = true
            defer { state.producerSleeping = false }
            return state.producerSleeping
        }
        if wake { producerBell.signal() }
    }

    /// Waits until the scheduler is closed, its queue empty and every lane idle.
    func waitUntilIdle() {
        let wait = state.withLock { state -> Bool in
            guard !(state.closed && state.count == 0 && state.idleLanes == lanes) else { return false }
            state.idleWaiters += 1
            return true
        }
        if wait { idleBell.wait() }
    }
}
