/// The storage behind the job's hand-over queues (`RequestThrottle`'s waiters, and the pipeline's
/// `BlockingQueue`, `LaneScheduler` and `WorkerPool`): a
/// FIFO whose taken slots are nil until the front is compacted away, so taking is O(1) and a taken
/// element is released at once.
///
/// Threading: none of its own; each owner keeps it inside its `Mutex`.
package struct FIFOBuffer<Element> {
    private var items: [Element?] = []
    private var head = 0

    package init() {}

    package var count: Int { items.count - head }

    package mutating func append(_ element: Element) {
        items.append(element)
    }

    /// The oldest element, if any.
    package mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head].take()
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > items.count {
            // A queue that never quite empties still sheds its taken slots.
            items.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFOBuffer: Sendable where Element: Sendable {}
