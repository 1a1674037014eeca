import Foundation
import Synchronization

/// A bounded FIFO handing work between the job's own threads (reader → lanes → writers).
///
/// `put` blocks while the queue is full, which is what keeps memory flat: the reader can never run
/// more than `capacity` users ahead of the lanes. `take` returns nil once the queue is closed and
/// empty. Blocking happens only on the job's dedicated threads, never on `DispatchQueue.global()`.
final class BlockingQueue<Element: Sendable>: Sendable {
    private let state: Mutex<(items: [Element], head: Int, closed: Bool)>
    private let capacity: Int
    private let available: DispatchSemaphore
    private let space: DispatchSemaphore

    init(capacity: Int) {
        self.capacity = capacity
        state = Mutex((items: [], head: 0, closed: false))
        available = DispatchSemaphore(value: 0)
        space = DispatchSemaphore(value: capacity)
    }

    /// Adds `element`, waiting for space; returns false (dropping it) when the queue was closed.
    @discardableResult
    func put(_ element: Element) -> Bool {
        space.wait()
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.items.append(element)
            return true
        }
        if accepted { available.signal() } else { space.signal() }
        return accepted
    }

    /// The next element, waiting for one; nil when the queue is closed and drained.
    func take() -> Element? {
        available.wait()
        let element = state.withLock { Self.pop(&$0) }
        if element != nil {
            space.signal()
        } else {
            available.signal()  // pass the "closed" wake-up on to the next taker
        }
        return element
    }

    /// The next element, waiting for one, then up to `limit - 1` more that arrive within `gather`
    /// of it: a writer collects a batch instead of committing each user alone. Empty when the
    /// queue is closed and drained; a closed queue ends the gathering at once.
    func take(upTo limit: Int, gather: Duration) -> [Element] {
        guard let first = take() else { return [] }
        var batch = [first]
        let deadline = DispatchTime.now() + .nanoseconds(Int(gather.components.seconds * 1_000_000_000
            + gather.components.attoseconds / 1_000_000_000))
        while batch.count < limit, available.wait(timeout: deadline) == .success {
            guard let element = state.withLock({ Self.pop(&$0) }) else {
                available.signal()  // the "closed" wake-up belongs to the next taker
                break
            }
            space.signal()
            batch.append(element)
        }
        return batch
    }

    /// The oldest element, if any; called holding the lock after a successful wait on `available`.
    private static func pop(_ state: inout (items: [Element], head: Int, closed: Bool)) -> Element? {
        guard state.head < state.items.count else { return nil }
        let element = state.items[state.head]
        state.head += 1
        if state.head > 1024, state.head * 2 > state.items.count {
            state.items.removeFirst(state.head)
            state.head = 0
        }
        return element
    }

    /// No more puts; takers drain what is queued, then get nil.
    func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if wasOpen {
            available.signal()
            space.signal()  // wake a producer blocked on a full queue; it sees `closed`
        }
    }
}
