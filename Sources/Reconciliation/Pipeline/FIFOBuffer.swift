/// The storage behind the job's hand-over queues (`BlockingQueue`, `LaneScheduler`, `WorkerPool`): a
/// FIFO whose taken slots are nil until the front is compacted away, so taking is O(1) and a taken
/// element is released at once.
///
/// Threading: none of its own; each owner keeps it inside its `Mutex`.
struct FIFOBuffer<Element> {
    private var items: [Element?] = []
    private var head = 0

    var count: Int { items.count - head }

    mutating func append(_ element: Element) {
        items.append(element)
    }

    /// The oldest element, if any.
    mutating func popFirst() -> Element? {
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
