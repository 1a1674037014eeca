import Dispatch
import Synchronization

/// The run's stop decision, its breakers and its write gate, shared by every stage (CONTRACT §6, §7).
///
/// The rules are pure values (`CircuitBreaker`, `WriteGate`); this type only serialises them and
/// wakes the writers when the gate opens. A stop (breaker, 21004/21000, database failure, signal)
/// is decided once: the first reason wins.
///
/// Threading: every method may be called from any thread; `waitForGate` blocks the calling writer.
final class RunControl: Sendable {
    private struct State {
        var stop: RunEnd?
        var breaker: CircuitBreaker
        var gate = WriteGate()

        /// Breakers watch a run that drains for a spent budget as closely as one that runs.
        var breakerMayTrip: Bool {
            guard let stop else { return true }
            if case .budgetSpent = stop { return true }
            return false
        }
    }

    private let state: Mutex<State>
    private let gate = DispatchSemaphore(value: 0)
    private let writerCount: Int

    init(breaker: CircuitBreaker, writerCount: Int) {
        state = Mutex(State(breaker: breaker))
        self.writerCount = writerCount
    }

    /// How the run ends because it was stopped; nil while it was not.
    var stopDecision: RunEnd? { state.withLock { $0.stop } }
    var isStopping: Bool { stopDecision != nil }
    /// Users not yet written are dropped: the run stopped for anything but a signal (a signal lets
    /// what is in flight finish, CONTRACT §6).
    var discardsUnwrittenUsers: Bool { stopDecision?.dropsUnwrittenUsers ?? false }

    /// Stops the run to end as `end` unless it was already stopped (by anything but a spent budget,
    /// `RunEnd.yields(to:)`); opens the gate so writers drain.
    func stop(_ end: RunEnd) {
        let opened = state.withLock { state in
            if state.stop.map({ $0.yields(to: end) }) ?? true { state.stop = end }
            return state.gate.open()
        }
        if opened { releaseWriters() }
    }

    /// A user's receipts were classified: feeds the unverified breaker and the gate.
    func classified(receipts: Int, unverified: Int) {
        let (trip, opened) = state.withLock { state -> (String?, Bool) in
            if let trip = state.breaker.classified(receipts: receipts, unverified: unverified), state.breakerMayTrip {
                return (trip, false)
            }
            return (nil, state.gate.classified(receipts: receipts))
        }
        if let trip { stop(.breaker(reason: trip)) }
        if opened { releaseWriters() }
    }

    /// A user's plan was made inside its writer's transaction: feeds the revoke breaker.
    func written(receipts: Int, revoked: Bool) {
        let trip = state.withLock { state -> String? in
            let trip = state.breaker.written(receipts: receipts, revoked: revoked)
            return state.breakerMayTrip ? trip : nil
        }
        if let trip { stop(.breaker(reason: trip)) }
    }

    /// A user's plan fed to `written` was not committed after all: its batch is written again.
    func withdrawn(receipts: Int, revoked: Bool) {
        state.withLock { $0.breaker.withdrawn(receipts: receipts, revoked: revoked) }
    }

    /// Restates a spent budget's reason with what is known once the run is done (the users left);
    /// any other stop stands.
    func restateBudgetSpent(_ reason: String) {
        state.withLock { state in
            if case .budgetSpent = state.stop { state.stop = .budgetSpent(reason: reason) }
        }
    }

    /// The run has no more work to classify: let the writers write what there is.
    func openGate() {
        if state.withLock({ $0.gate.open() }) { releaseWriters() }
    }

    /// Blocks a writer until the gate opens.
    func waitForGate() {
        gate.wait()
    }

    private func releaseWriters() {
        for _ in 0..<writerCount { gate.signal() }
    }
}
