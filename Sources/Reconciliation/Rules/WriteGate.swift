/// When a run may start writing: once the classification judges (`CircuitBreaker`: unverified, unknown
/// products) have spoken on their window of receipts.
///
/// Nothing is written until that many receipts were classified, so a wrong shared secret (21004), an
/// outage or a mapping that misses products found in the first answers stops the run before a single
/// write. The gate also opens when the run has no more work (a night smaller than the window, judged
/// whole first) or has stopped (the writers then only drain, or, for a signal, finish what was in flight).
public struct WriteGate: Hashable, Sendable {
    public let minimumReceipts: Int
    public private(set) var classifiedReceipts = 0
    public private(set) var isOpen = false

    public init(minimumReceipts: Int = CircuitBreaker.window) {
        self.minimumReceipts = minimumReceipts
    }

    /// Counts classified receipts. - Returns: true when this call opened the gate.
    public mutating func classified(receipts: Int) -> Bool {
        classifiedReceipts += receipts
        return classifiedReceipts >= minimumReceipts ? open() : false
    }

    /// Opens the gate whatever the count. - Returns: true when this call opened it.
    public mutating func open() -> Bool {
        guard !isOpen else { return false }
        isOpen = true
        return true
    }
}
