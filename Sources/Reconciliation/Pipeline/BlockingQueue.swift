import AppStoreReceipts
import Foundation
import Synchronization

/// A bounded FIFO handing work between the job's own threads: the lanes' finished users to the writers.
///
/// `put` blocks while the queue is full, which is what keeps memory flat: the lanes can never run more
/// than `capacity` users ahead of the writers. `take` returns nil once the queue is closed and empty.
/// Blocking happens only on the job's dedicated threads, never on `DispatchQueue.global()`.
///
/// Why not one semaphore per direction: then every `take` woke a blocked producer and every `put` a
/// gathering writer, a thread switch per user each (about a tenth of a millisecond of CPU here between
/// them). Instead a sleeping thread is woken only when it has something worth waking for: producers
/// once the queue has drained to `refill`, a waiting taker per element, and a gathering writer only
/// when the queue closes (else it sleeps out its gather time, then takes what came).
///
/// Each sleeper registers in `state` under the lock and sleeps on its own side's semaphore; a wake-up is
/// one `signal` for one registered sleeper, so a signal is never lost nor spent on nobody.
final class BlockingQueue<Element: Sendable>: Sendable {
    private struct State {
        var items = FIFOBuffer<Element>()
        var closed = false
        var sleepingProducers = 0
        var sleepingTakers = 0
        var count: Int { items.count }
    }

    private let state = Mutex(State())
    private let capacity: Int
    /// Blocked producers wake when this few elements are left.
    private let refill: Int
    private let producerBell = DispatchSemaphore(value: 0)
    private let takerBell = DispatchSemaphore(value: 0)
    /// Signalled once by `close`; a gatherer woken by it signals it again for the next one, so every
    /// gathering taker, now or later, stops waiting for elements that will never come.
    private let closingBell = DispatchSemaphore(value: 0)

    /// - Parameter refill: blocked producers wake once this few elements are left (default: half the
    ///   capacity, for producers that work cheaper in bulk). The engine passes `capacity - 1`: a worker
    ///   kept asleep on a full queue is answers not handled and requests not sent while tokens go unused.
    init(capacity: Int, refill: Int? = nil) {
        precondition(capacity >= 1, "capacity must be at least 1")
        self.capacity = capacity
        self.refill = min(capacity - 1, max(0, refill ?? capacity / 2))
    }

    /// Adds `element`, waiting for space; returns false (dropping it) when the queue was closed.
    @discardableResult
    func put(_ element: Element) -> Bool {
        while true {
            let (accepted, wakeTaker) = state.withLock { state -> (Bool?, Bool) in
                if state.closed { return (false, false) }
                guard state.count < capacity else {
                    state.sleepingProducers += 1
                    return (nil, false)
                }
                state.items.append(element)
                guard state.sleepingTakers > 0 else { return (true, false) }
                state.sleepingTakers -= 1
                return (true, true)
            }
            if wakeTaker { takerBell.signal() }
            if let accepted { return accepted }
            producerBell.wait()
        }
    }

    /// The next element, waiting for one; nil when the queue is closed and drained.
    func take() -> Element? {
        while true {
            let (element, sleep, producers) = state.withLock { state -> (Element?, Bool, Int) in
                if let element = state.items.popFirst() { return (element, false, wakeableProducers(&state)) }
                if state.closed { return (nil, false, 0) }
                state.sleepingTakers += 1
                return (nil, true, 0)
            }
            for _ in 0..<producers { producerBell.signal() }
            if !sleep { return element }
            takerBell.wait()
        }
    }

    /// The next element, waiting for one, then up to `limit - 1` more that arrive within `gather`
    /// of it: a writer collects a batch instead of committing each user alone. Empty when the
    /// queue is closed and drained. The gathering sleeps its whole time unless the queue closes: the
    /// run's last batch (and `verify-user`'s only one) is written as soon as there is no more work.
    func take(upTo limit: Int, gather: Duration) -> [Element] {
        guard let first = take() else { return [] }
        var batch = [first]
        let waitForMore = state.withLock { $0.count < limit - 1 && !$0.closed }
        if waitForMore {
            let seconds = Double(gather.components.seconds) + Double(gather.components.attoseconds) / 1e18
            if closingBell.wait(timeout: .now() + seconds) == .success { closingBell.signal() }
        }
        let producers = state.withLock { state -> Int in
            while batch.count < limit, let element = state.items.popFirst() { batch.append(element) }
            return wakeableProducers(&state)
        }
        for _ in 0..<producers { producerBell.signal() }
        return batch
    }

    /// No more puts; takers drain what is queued, then get nil. Wakes every sleeper.
    func close() {
        let (producers, takers) = state.withLock { state -> (Int, Int) in
            state.closed = true
            defer { (state.sleepingProducers, state.sleepingTakers) = (0, 0) }
            return (state.sleepingProducers, state.sleepingTakers)
        }
        for _ in 0..<producers { producerBell.signal() }
        for _ in 0..<takers { takerBell.signal() }
        closingBell.signal()
    }

    /// How many sleeping producers to wake now (unregistering them): all of them once the queue is down
    /// to `refill`, none before.
    private func wakeableProducers(_ state: inout State) -> Int {
        guard state.sleepingProducers > 0, state.count <= refill else { return 0 }
        defer { state.sleepingProducers = 0 }
        return state.sleepingProducers
    }
}
