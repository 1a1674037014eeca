/// When a run may start writing (CONTRACT §7: breakers decide "after at least 100 receipts").
///
/// Nothing is written until that many receipts were classified, so a wrong shared secret (21004)
/// or an outage found in the first answers stops the run before a single correction. The gate
/// also opens when the run has no more work (a run smaller than the minimum) or has stopped (the
/// writers then only drain, or, for a signal, finish what was in flight).
public struct WriteGate: Hashable, Sendable {
    public let minimumReceipts: Int
    public private(set) var classifiedReceipts = 0
    public private(set) var isOpen = false

    public init(minimumReceipts: Int = CircuitBreaker.minimumReceipts) {
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
