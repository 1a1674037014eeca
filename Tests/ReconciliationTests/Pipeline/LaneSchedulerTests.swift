import Foundation
import Synchronization
import Testing

@testable import Reconciliation

/// The lanes without threads: an idle lane runs a user on the admitting thread, a finished lane takes the
/// next queued user, the queue's bound holds the reader back, and the run waits for every lane.
@Suite struct LaneSchedulerTests {
    @Test func idleLanesRunUsersAtOnceThenUsersQueueForTheNextFreeLane() {
        let lanes = LaneScheduler<Int>(lanes: 2, capacity: 4)
        guard case .run(0) = lanes.admit(0), case .run(1) = lanes.admit(1) else {
            Issue.record("a user admitted while a lane was idle was not given to the caller to run")
            return
        }
        guard case .queued = lanes.admit(2), case .queued = lanes.admit(3) else {
            Issue.record("a user admitted while every lane was busy was not queued")
            return
        }
        // A lane that finishes takes the oldest queued user, then falls idle once nothing is queued.
        #expect(lanes.next() == 2)
        #expect(lanes.next() == 3)
        #expect(lanes.next() == nil)
        guard case .run(4) = lanes.admit(4) else {
            Issue.record("the lane that fell idle was not used for the next user")
            return
        }
    }

    @Test func aFullQueueHoldsTheReaderUntilHalfDrained() {
        let lanes = LaneScheduler<Int>(lanes: 1, capacity: 4)
        _ = lanes.admit(0)
        for user in 1...4 { _ = lanes.admit(user) }
        let admitted = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = lanes.admit(5)
            admitted.signal()
        }
        #expect(admitted.wait(timeout: .now() + 0.2) == .timedOut, "admit went past a full queue")
        #expect(lanes.next() == 1)
        // Three left: above half of four, so the reader still sleeps.
        #expect(
            admitted.wait(timeout: .now() + 0.2) == .timedOut, "the reader was woken before the queue drained to half")
        #expect(lanes.next() == 2)
        #expect(admitted.wait(timeout: .now() + 5) == .success, "the reader was not woken at half")
        #expect((3...5).map { _ in lanes.next() } == [3, 4, 5])
    }

    @Test func closingDropsLaterUsersAndTheWaitEndsWhenTheLastLaneFallsIdle() {
        let lanes = LaneScheduler<Int>(lanes: 2, capacity: 4)
        _ = lanes.admit(0)
        _ = lanes.admit(1)
        _ = lanes.admit(2)
        lanes.close()
        guard case .closed = lanes.admit(3) else {
            Issue.record("a closed scheduler took a user")
            return
        }
        let idle = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            lanes.waitUntilIdle()
            idle.signal()
        }
        // Queued before the close: still run.
        #expect(lanes.next() == 2)
        #expect(lanes.next() == nil)
        #expect(idle.wait(timeout: .now() + 0.2) == .timedOut, "the wait ended with a lane still busy")
        #expect(lanes.next() == nil)
        #expect(idle.wait(timeout: .now() + 5) == .success, "the wait did not end when every lane was idle")
        lanes.waitUntilIdle()
    }

    /// Many lanes finishing and the reader admitting at once, from several threads: every user runs once,
    /// never more than `lanes` at a time.
    @Test func everyUserRunsExactlyOnceWithAtMostLanesInFlight() {
        let laneCount = 3
        let users = 3_000
        let lanes = LaneScheduler<Int>(lanes: laneCount, capacity: 8)
        let runs = Mutex((count: [Int](repeating: 0, count: users), inFlight: 0, peak: 0))
        let finishing = DispatchGroup()
        // A user "runs" on a thread of its own for a moment, then its lane takes the next queued one.
        @Sendable func run(_ first: Int) {
            finishing.enter()
            Thread.detachNewThread {
                var user: Int? = first
                while let current = user {
                    runs.withLock { runs in
                        runs.count[current] += 1
                        runs.inFlight += 1
                        runs.peak = max(runs.peak, runs.inFlight)
                    }
                    usleep(UInt32.random(in: 0...50))
                    runs.withLock { $0.inFlight -= 1 }
                    user = lanes.next()
                }
                finishing.leave()
            }
        }
        for user in 0..<users {
            if case .run(let work) = lanes.admit(user) { run(work) }
        }
        lanes.close()
        lanes.waitUntilIdle()
        #expect(finishing.wait(timeout: .now() + 30) == .success)
        let final = runs.withLock { $0 }
        #expect(final.count.allSatisfy { $0 == 1 }, "a user ran twice or never")
        #expect(final.peak <= laneCount, "more users in flight than lanes")
    }
}
