import Dispatch
import Synchronization

/// A bounded hand-over of row batches from the generating thread to the copying thread, so that world
/// generation (CPU in this process) and `COPY` (CPU in PostgreSQL) overlap on a two-core machine
/// while at most `capacity` batches wait in memory.
///
/// Threading: one producer calls `put` and `finish`; one consumer calls `take`; either may `cancel`.
final class SeedPipeline<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var finished = false
        var cancelled = false
    }

    private let state = Mutex(State())
    private let slots: DispatchSemaphore
    private let available = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        slots = DispatchSemaphore(value: capacity)
    }

    /// Waits for room, then hands `item` over; false when the consumer has cancelled.
    func put(_ item: Item) -> Bool {
        slots.wait()
        let accepted = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.items.append(item)
            return true
        }
        available.signal()
        return accepted
    }

    /// No more items will come.
    func finish() {
        state.withLock { $0.finished = true }
        available.signal()
    }

    /// The next item, or nil once the producer has finished and everything was taken (or on cancel).
    func take() -> Item? {
        while true {
            available.wait()
            let next = state.withLock { state -> (item: Item?, done: Bool) in
                if state.cancelled { return (nil, true) }
                if !state.items.isEmpty { return (state.items.removeFirst(), false) }
                return (nil, state.finished)
            }
            if let item = next.item {
                slots.signal()
                return item
            }
            if next.done { return nil }
        }
    }

    /// Stops the hand-over: a waiting or later `put` returns false, `take` returns nil.
    func cancel() {
        state.withLock { $0.cancelled = true }
        slots.signal()
        available.signal()
    }
}
