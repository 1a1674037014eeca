import AppStoreReceipts
import Foundation
import Synchronization

/// The job's few worker threads: they run what follows each answer from Apple (decoding it, judging the
/// user, handing the user to the writers, starting the next request).
///
/// Why not a thread per request in flight: then every answer woke its own lane, a thread switch per
/// receipt, and 64 to 192 threads took turns on two cores with cold caches. Here the curl loop hands over
/// the answers it collected in a turn, and a sleeping worker is woken only when no worker is awake, or
/// when work piles up behind the awake ones; an awake worker runs everything queued before it sleeps.
///
/// Threading: `submit` may be called from any thread (the curl loop's, mostly) and never blocks. The
/// work may block briefly (a full writers' queue), as it runs on threads of the job's own, never on
/// `DispatchQueue.global()`.
final class WorkerPool: Sendable {
    private struct State {
        var queue = FIFOBuffer<@Sendable () -> Void>()
        var sleeping = 0
        var awake: Int
        var closed = false
    }

    /// Work queued behind the awake workers beyond which a sleeping one is woken to help.
    static let backlogPerWorker = 8

    private let state: Mutex<State>
    private let bell = DispatchSemaphore(value: 0)
    private let exited = DispatchGroup()

    init(threads: Int, name: String) {
        precondition(threads >= 1, "a pool needs a thread")
        state = Mutex(State(awake: threads))
        for index in 0..<threads {
            exited.enter()
            let thread = Thread { [self] in
                defer { exited.leave() }
                work()
            }
            thread.name = "\(name).\(index)"
            thread.start()
        }
    }

    /// Queues `work`; a worker runs it soon.
    func submit(_ work: @escaping @Sendable () -> Void) {
        let wake = state.withLock { state -> Bool in
            state.queue.append(work)
            guard state.sleeping > 0, state.awake == 0 || state.queue.count > Self.backlogPerWorker * state.awake else {
                return false
            }
            state.sleeping -= 1
            state.awake += 1
            return true
        }
        if wake { bell.signal() }
    }

    /// Lets the workers run what is queued (and whatever that submits), then ends them; returns when they
    /// have ended.
    func close() {
        let sleepers = state.withLock { state -> Int in
            state.closed = true
            defer {
                state.awake += state.sleeping
                state.sleeping = 0
            }
            return state.sleeping
        }
        for _ in 0..<sleepers { bell.signal() }
        exited.wait()
    }

    private func work() {
        while true {
            // One at a time: work may block (a full writers' queue), and what is still queued then goes
            // to another worker instead of waiting behind it.
            let next = state.withLock { state -> (@Sendable () -> Void)?? in
                if let work = state.queue.popFirst() { return .some(work) }
                // Closed and drained: every other worker is idle too or running its last work, which can
                // still submit more; that worker runs it itself before it sees this.
                if state.closed { return nil }
                state.sleeping += 1
                state.awake -= 1
                return .some(nil)
            }
            guard let next else { return }
            guard let work = next else {
                bell.wait()
                continue
            }
            work()
        }
    }
}
