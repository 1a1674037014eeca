import Foundation
import Synchronization
import Testing

@testable import Reconciliation

/// The queue between the reader, the lanes and the writers: nothing lost or duplicated under contention,
/// the bound holds producers back, and closing wakes every sleeper.
@Suite struct BlockingQueueTests {
    @Test func everyElementIsTakenExactlyOnceAndInOrderByEachTaker() {
        let queue = BlockingQueue<(producer: Int, index: Int)>(capacity: 8)
        let producers = 3
        let perProducer = 5_000
        let takers = 4
        // taken[taker][producer]: the indices in the order that taker got them.
        let taken = Mutex<[[[Int]]]>(Array(repeating: Array(repeating: [], count: producers), count: takers))
        let producing = DispatchGroup()
        for producer in 0..<producers {
            producing.enter()
            Thread.detachNewThread {
                for index in 0..<perProducer { queue.put((producer, index)) }
                producing.leave()
            }
        }
        let taking = DispatchGroup()
        for taker in 0..<takers {
            taking.enter()
            Thread.detachNewThread {
                while let element = queue.take() {
                    taken.withLock { $0[taker][element.producer].append(element.index) }
                }
                taking.leave()
            }
        }
        #expect(producing.wait(timeout: .now() + 30) == .success, "a producer is stuck")
        queue.close()
        #expect(taking.wait(timeout: .now() + 10) == .success, "a taker did not see the close")
        let byTaker = taken.withLock { $0 }
        for producer in 0..<producers {
            let all = byTaker.flatMap { $0[producer] }
            #expect(all.count == perProducer && Set(all) == Set(0..<perProducer), "lost or duplicated elements")
            for taker in 0..<takers {
                #expect(
                    byTaker[taker][producer] == byTaker[taker][producer].sorted(),
                    "a taker got a producer's elements out of order")
            }
        }
    }

    /// A queue of four holding 0...3, and a producer putting 4 on a thread of its own; the semaphore is
    /// signalled once that put returned.
    static func fullQueueWithAWaitingProducer(refill: Int? = nil) -> (BlockingQueue<Int>, fifthPut: DispatchSemaphore) {
        let queue = BlockingQueue<Int>(capacity: 4, refill: refill)
        for value in 0..<4 { queue.put(value) }
        let fifthPut = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            queue.put(4)
            fifthPut.signal()
        }
        return (queue, fifthPut)
    }

    @Test func aFullQueueHoldsItsProducerUntilHalfDrained() {
        let (queue, fifthPut) = Self.fullQueueWithAWaitingProducer()
        #expect(fifthPut.wait(timeout: .now() + 0.2) == .timedOut, "put went past a full queue")
        #expect(queue.take() == 0)
        // Three left: above half of four, so the producer still sleeps.
        #expect(
            fifthPut.wait(timeout: .now() + 0.2) == .timedOut, "the producer was woken before the queue drained to half"
        )
        #expect(queue.take() == 1)
        #expect(fifthPut.wait(timeout: .now() + 5) == .success, "the producer was not woken at half")
        #expect((2...4).map { _ in queue.take() } == [2, 3, 4])
    }

    @Test func aQueueRefillingAtCapacityMinusOneWakesItsProducerAtTheFirstFreeSlot() {
        let (queue, fifthPut) = Self.fullQueueWithAWaitingProducer(refill: 3)
        #expect(fifthPut.wait(timeout: .now() + 0.2) == .timedOut, "put went past a full queue")
        #expect(queue.take() == 0)
        #expect(fifthPut.wait(timeout: .now() + 5) == .success, "the producer slept on with a slot free")
        #expect((1...4).map { _ in queue.take() } == [1, 2, 3, 4])
    }

    @Test func closingWakesSleepingTakersAndProducersAndKeepsWhatWasQueued() {
        let empty = BlockingQueue<Int>(capacity: 2)
        let takerDone = DispatchSemaphore(value: 0)
        let result = Mutex<Int?>(-1)
        Thread.detachNewThread {
            let value = empty.take()
            result.withLock { $0 = value }
            takerDone.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        empty.close()
        #expect(takerDone.wait(timeout: .now() + 5) == .success)
        #expect(result.withLock { $0 } == nil)

        let full = BlockingQueue<Int>(capacity: 1)
        full.put(7)
        let producerDone = DispatchSemaphore(value: 0)
        let accepted = Mutex<Bool?>(nil)
        Thread.detachNewThread {
            let wasAccepted = full.put(8)
            accepted.withLock { $0 = wasAccepted }
            producerDone.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        full.close()
        #expect(producerDone.wait(timeout: .now() + 5) == .success)
        #expect(accepted.withLock { $0 } == false, "a put after close was accepted")
        #expect(full.take() == 7, "closing lost a queued element")
        #expect(full.take() == nil)
        #expect(full.put(9) == false)
    }

    @Test func aGatheringTakerCollectsWhatArrivesWithinItsTimeUpToTheLimit() {
        let queue = BlockingQueue<Int>(capacity: 100)
        for value in 0..<3 { queue.put(value) }
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.05)
            for value in 3..<10 { queue.put(value) }
        }
        // Arrivals within the gather time join the batch, in order.
        #expect(queue.take(upTo: 100, gather: .milliseconds(500)) == Array(0..<10))

        for value in 0..<10 { queue.put(value) }
        #expect(queue.take(upTo: 4, gather: .seconds(60)) == [0, 1, 2, 3], "a full batch waited for its gather time")
        queue.close()
        #expect(queue.take(upTo: 100, gather: .seconds(60)) == Array(4..<10), "a closed queue's gather waited")
        #expect(queue.take(upTo: 100, gather: .seconds(60)) == [])
    }

    /// The run's last batch is written when the work ends, not a gather time later; so is
    /// `verify-user`'s only user.
    @Test func closingEndsTheGatheringOfEveryWaitingTaker() {
        let queue = BlockingQueue<Int>(capacity: 100)
        queue.put(1)
        queue.put(2)
        let batches = Mutex<[[Int]]>([])
        let gathering = DispatchGroup()
        for _ in 0..<2 {
            gathering.enter()
            Thread.detachNewThread {
                let batch = queue.take(upTo: 100, gather: .seconds(60))
                batches.withLock { $0.append(batch) }
                gathering.leave()
            }
        }
        Thread.sleep(forTimeInterval: 0.1)
        queue.close()
        #expect(gathering.wait(timeout: .now() + 20) == .success, "a gathering taker slept through the close")
        #expect(batches.withLock { $0.flatMap { $0 }.sorted() } == [1, 2])
    }
}
