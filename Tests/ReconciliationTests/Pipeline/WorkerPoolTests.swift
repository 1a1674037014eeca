import Foundation
import Synchronization
import Testing

@testable import Reconciliation

/// The workers that carry on from Apple's answers: everything submitted runs once, on the pool's own few
/// threads, and closing runs what is still queued, including work that work submits.
@Suite struct WorkerPoolTests {
    @Test func everySubmittedWorkRunsOnceOnThePoolsThreads() {
        let pool = WorkerPool(threads: 2, name: "test.worker")
        let count = 20_000
        let ran = Mutex((times: [Int](repeating: 0, count: count), threads: Set<UInt>(), running: 0, peak: 0))
        let submitterThreads = Mutex(Set<UInt>())
        let submitters = DispatchGroup()
        for part in 0..<4 {
            submitters.enter()
            Thread.detachNewThread {
                submitterThreads.withLock { _ = $0.insert(UInt(pthread_self())) }
                for index in stride(from: part, to: count, by: 4) {
                    pool.submit {
                        ran.withLock { ran in
                            ran.times[index] += 1
                            ran.threads.insert(UInt(pthread_self()))
                            ran.running += 1
                            ran.peak = max(ran.peak, ran.running)
                        }
                        ran.withLock { $0.running -= 1 }
                    }
                }
                submitters.leave()
            }
        }
        #expect(submitters.wait(timeout: .now() + 30) == .success)
        pool.close()
        let final = ran.withLock { $0 }
        #expect(final.times.allSatisfy { $0 == 1 }, "work lost or run twice")
        #expect(
            final.threads.count <= 2 && final.threads.isDisjoint(with: submitterThreads.withLock { $0 }),
            "work ran off the pool's two threads")
        #expect(final.peak <= 2)
    }

    @Test func closeRunsWhatIsQueuedAndWhatThatSubmits() {
        let pool = WorkerPool(threads: 1, name: "test.chain")
        let steps = Mutex(0)
        @Sendable func step(_ remaining: Int) {
            steps.withLock { $0 += 1 }
            if remaining > 0 { pool.submit { step(remaining - 1) } }
        }
        pool.submit { step(99) }
        pool.close()
        #expect(steps.withLock { $0 } == 100, "close returned before the chain of submitted work ended")
    }

    /// Blocking work on one worker does not hold up the rest: the queue behind it wakes the other.
    @Test func aBlockedWorkerDoesNotStallTheOthers() {
        let pool = WorkerPool(threads: 2, name: "test.blocked")
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        pool.submit { release.wait() }
        // Enough to exceed one worker's backlog, so the sleeping one is woken.
        for _ in 0...(WorkerPool.backlogPerWorker * 2) { pool.submit { done.signal() } }
        var finished = 0
        while finished <= WorkerPool.backlogPerWorker * 2, done.wait(timeout: .now() + 5) == .success { finished += 1 }
        #expect(finished == WorkerPool.backlogPerWorker * 2 + 1, "work queued behind a blocked worker did not run")
        release.signal()
        pool.close()
    }
}
