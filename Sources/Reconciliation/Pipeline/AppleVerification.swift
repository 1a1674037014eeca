import AppStoreReceipts
import Foundation
import Synchronization

/// Stage 2, verify: the users in flight with Apple, at most one per lane (`--concurrency`), each
/// handed to the `AppleBackend` whole. A lane is a turn, not a thread (`LaneScheduler`): the reader
/// starts a user when it finds a lane idle, and whichever worker delivers a user's answer takes the
/// lane's next queued user, so no thread is woken per user and no lane waits on another.
///
/// Threading: `admit` and `finish` are the reader's (`admit` blocks while the queue is full); `verified`
/// is called on a worker thread (or on the reader's, for a user that needed no request), one call
/// per user, never for two users on one thread at once.
final class AppleVerification: Sendable {
    private let backend: any AppleBackend
    private let driver: ExchangeDriver
    private let lanes: LaneScheduler<UserWork>
    private let workers: WorkerPool
    private let context: ExchangeContext
    private let recordTraffic: @Sendable (AppleTraffic, UserWork) -> Void
    private let dropsQueuedUsers: @Sendable () -> Bool
    private let verified: @Sendable (UserWork, AppleUserAnswer) -> Void

    /// - Parameters:
    ///   - isDraining: true once the run stops calling Apple (no new question, no retry).
    ///   - dropsQueuedUsers: true once queued users are to be dropped (a stop, or a signal).
    ///   - verified: takes each user with Apple's answer (the pipeline decides and queues the write).
    init(
        backend: any AppleBackend,
        driver: ExchangeDriver,
        concurrency: Int,
        isDraining: @escaping @Sendable () -> Bool,
        dropsQueuedUsers: @escaping @Sendable () -> Bool,
        recordTraffic: @escaping @Sendable (AppleTraffic, UserWork) -> Void,
        budgetSpent: (@Sendable (AppleLimitKey) -> Void)? = nil,
        verified: @escaping @Sendable (UserWork, AppleUserAnswer) -> Void
    ) {
        self.backend = backend
        self.driver = driver
        let lanes = Self.lanes(concurrency: concurrency)
        self.lanes = LaneScheduler(lanes: lanes, capacity: max(16, lanes * 2))
        // Answers are decoded and judged here; more threads than cores would only contend.
        let workers = WorkerPool(
            threads: max(1, min(concurrency, ProcessInfo.processInfo.activeProcessorCount)),
            name: "receipt-recon.worker")
        self.workers = workers
        context = ExchangeContext(
            executor: WorkExecutor { workers.submit($0) }, isDraining: isDraining, budgetSpent: budgetSpent)
        self.recordTraffic = recordTraffic
        self.dropsQueuedUsers = dropsQueuedUsers
        self.verified = verified
    }

    /// Users in flight for `concurrency` requests in flight: a few more than the cap, so that a slot
    /// freed by an answer is taken at once by a request already waiting for it (`RequestThrottle`),
    /// instead of staying idle while its lane's worker decodes the answer, judges the user and
    /// prepares the next one. An eighth more covers a turnaround of an eighth of Apple's latency.
    static func lanes(concurrency: Int) -> Int {
        concurrency + max(2, concurrency / 8)
    }

    /// Gives `user` a lane now, or queues it. - Returns: false when the run takes no more users.
    func admit(_ user: UserWork) -> Bool {
        switch lanes.admit(user) {
        case .run(let user):
            run(user)
            return true
        case .queued: return true
        case .closed: return false
        }
    }

    /// Drives exchanges that belong to no user (pieces of the night's notification history) on the same
    /// driver, budget and workers, at most `window` of them outstanding, and hands their results to
    /// `body` in order on the calling thread (the notification read's, while users are admitted). The next
    /// exchange starts as `body` takes one, so at most `window` results are held at once; once `body`
    /// returns false, none more starts and the rest are waited for and dropped.
    func inOrder<Exchange: AppleExchange>(
        _ exchanges: [Exchange], window: Int, recordTraffic: @escaping @Sendable (AppleTraffic) -> Void,
        _ body: (Exchange.Result) throws -> Bool
    ) rethrows {
        let arrived = Mutex<[Int: Exchange.Result]>([:])
        let arrival = DispatchSemaphore(value: 0)
        var context = self.context
        context.recordTraffic = recordTraffic
        var started = 0
        func startNext() {
            let index = started
            started += 1
            driver.run(exchanges[index], context: context) { answer in
                arrived.withLock { $0[index] = answer }
                arrival.signal()
            }
        }
        while started < min(max(1, window), exchanges.count) { startNext() }
        var taken = 0
        var going = true
        // Every started exchange is waited for, even after `body` stopped or threw: none outlives this call.
        defer {
            while taken < started {
                arrival.wait()
                taken += 1
            }
        }
        var next = 0
        while next < started {
            arrival.wait()
            taken += 1
            while let result = arrived.withLock({ $0.removeValue(forKey: next) }) {
                next += 1
                guard going else { continue }
                going = try body(result)
                if going, started < exchanges.count { startNext() }
            }
        }
    }

    /// No more users: waits until every admitted user was verified (or dropped, when stopping).
    func finish() {
        lanes.close()
        lanes.waitUntilIdle()
        workers.close()
    }

    /// Verifies users on one lane, starting with `first`, until one waits for Apple or the lane falls idle.
    ///
    /// An exchange may finish before `run` returns (every row local or cached): the loop then takes
    /// the lane's next user itself, instead of recursing from the completion, so a long run of such
    /// users cannot deepen the stack. Otherwise the completion, on a worker, carries the lane on.
    private func run(_ first: UserWork) {
        var current: UserWork? = first
        while let user = current {
            current = nil
            let handoff = Handoff()
            var context = self.context
            context.recordTraffic = { [recordTraffic] in recordTraffic($0, user) }
            driver.run(backend.exchange(for: user), context: context) { [self] answer in
                verified(user, answer)
                if handoff.answeredInline() { return }
                if let next = nextUser() { run(next) }
            }
            if handoff.returnedFirst() { return }
            current = nextUser()
        }
    }

    /// The lane's next user, or nil (the lane is idle). A stopping run drops queued users: they were
    /// never in flight.
    private func nextUser() -> UserWork? {
        while let user = lanes.next() {
            if !dropsQueuedUsers() { return user }
        }
        return nil
    }

    /// Who carries a lane on after a `verify`: the caller, if the answer came before `verify`
    /// returned, else the answer's thread. Exactly one of the two sees its claim succeed.
    private final class Handoff: Sendable {
        private let state = Atomic<Int>(0)

        /// Called by the completion. - Returns: true when the caller is still inside `verify`.
        func answeredInline() -> Bool {
            state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
        }

        /// Called by the caller after `verify`. - Returns: true when the answer is still to come.
        func returnedFirst() -> Bool {
            state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged
        }
    }
}
