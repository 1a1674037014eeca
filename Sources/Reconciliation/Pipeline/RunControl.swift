import Dispatch
import Synchronization

/// The run's stop decision, its breakers, its write gate and the take-aways waiting for their judge,
/// shared by every stage (CONTRACT §6, §7).
///
/// The rules are pure values (`CircuitBreaker`, `WriteGate`); this type only serialises them, wakes the
/// writers when the gate opens and keeps the users held for the revoke judge. A stop (breaker,
/// 21004/21000, database failure, signal) is decided once: the first reason wins.
///
/// Take-aways wait for their judge (DESIGN "Safe by construction"): nothing is written before the
/// classification judges have spoken (the gate), and a user whose plan revokes or shortens is held,
/// unwritten, until the revoke judge has spoken on the users it covers; grants and extensions need no
/// judge. On a night smaller than the breaker's window that is the whole night: the last writer to run
/// out of users asks the judge and writes the held users only if it does not trip.
///
/// Threading: every method may be called from any thread; `waitForGate` blocks the calling writer.
final class RunControl: Sendable {
    /// What a writer does with a user it has just planned.
    enum PlanVerdict: Equatable {
        case write
        /// Kept unwritten until the revoke judge speaks (`releasedUsers`, `writerFinished`).
        case hold
        /// The run stopped (this user tripped a breaker, or another stop came): write no more.
        case stop
    }

    private struct State {
        var stop: RunEnd?
        var breaker: CircuitBreaker
        var gate = WriteGate()
        /// Users whose plan takes access away, not yet judged, by user id (a batch planned again after a
        /// dropped connection holds its users again, once).
        var held: [String: WritableUser] = [:]
        var heldOrder: [String] = []
        /// Users the revoke judge cleared, for the writers to write next.
        var released: [WritableUser] = []
        var writersFinished = 0

        /// Breakers watch a run that drains for a spent budget as closely as one that runs.
        var breakerMayTrip: Bool {
            guard let stop else { return true }
            if case .budgetSpent = stop { return true }
            return false
        }

        mutating func releaseHeld() {
            released += heldOrder.compactMap { held[$0] }
            held = [:]
            heldOrder = []
        }
    }

    private let state: Mutex<State>
    private let gate = DispatchSemaphore(value: 0)
    private let writerCount: Int
    /// A night is judged whole and its take-aways wait for the judge; `verify-user`'s one user, asked for
    /// by support, is written as it is planned.
    private let judgesTakeAways: Bool

    init(breaker: CircuitBreaker, writerCount: Int, judgesTakeAways: Bool = true) {
        state = Mutex(State(breaker: breaker))
        self.writerCount = writerCount
        self.judgesTakeAways = judgesTakeAways
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

    /// A user's receipts were classified: feeds the unverified and unknown-products judges and the gate.
    func classified(receipts: Int, unverified: Int, unknownProducts: [[String]], cause: String?) {
        let (trip, opened) = state.withLock { state -> (CircuitBreaker.Trip?, Bool) in
            let trip = state.breaker.classified(
                receipts: receipts, unverified: unverified, unknownProducts: unknownProducts, cause: cause)
            if let trip, state.breakerMayTrip { return (trip, false) }
            return (nil, state.gate.classified(receipts: receipts))
        }
        if let trip { stop(Self.end(of: trip)) }
        if opened { releaseWriters() }
    }

    /// A user was planned inside its writer's transaction: feeds the revoke judge and says whether the user
    /// is written now, held for the judge, or not written at all.
    func planned(_ user: WritableUser, revoked: Bool, takesAway: Bool) -> PlanVerdict {
        let (verdict, trip) = state.withLock { state -> (PlanVerdict, CircuitBreaker.Trip?) in
            if state.stop?.dropsUnwrittenUsers == true { return (.stop, nil) }
            let spokeBefore = state.breaker.revokeJudgeSpeaks
            // A trip while a signal drains still keeps this user unwritten; only the reason stays the signal's.
            if let trip = state.breaker.planned(receipts: user.decided.results.count, revoked: revoked) {
                return (.stop, state.breakerMayTrip ? trip : nil)
            }
            if judgesTakeAways && !spokeBefore && state.breaker.revokeJudgeSpeaks { state.releaseHeld() }
            guard judgesTakeAways, takesAway, !state.breaker.revokeJudgeSpeaks else { return (.write, nil) }
            if state.held.updateValue(user, forKey: user.userID) == nil { state.heldOrder.append(user.userID) }
            return (.hold, nil)
        }
        if let trip { stop(Self.end(of: trip)) }
        return verdict
    }

    /// A user fed to `planned` was not committed after all: its batch is planned again.
    func withdrawn(_ user: WritableUser, revoked: Bool, held: Bool) {
        state.withLock { state in
            state.breaker.withdrawn(receipts: user.decided.results.count, revoked: revoked)
            if held, state.held.removeValue(forKey: user.userID) != nil {
                state.heldOrder.removeAll { $0 == user.userID }
            }
        }
    }

    /// Users the revoke judge has cleared, up to `limit`, for a writer to write before anything queued.
    func releasedUsers(upTo limit: Int) -> [WritableUser] {
        state.withLock { state in
            guard state.stop?.dropsUnwrittenUsers != true else { return [] }
            let taken = Array(state.released.prefix(limit))
            state.released.removeFirst(taken.count)
            return taken
        }
    }

    /// A writer has no more queued users. The last one asks the revoke judge about the whole night and
    /// gets the users it held to write, unless the judge trips (or the run stopped meanwhile).
    func writerFinished() -> [WritableUser] {
        let (users, trip) = state.withLock { state -> ([WritableUser], CircuitBreaker.Trip?) in
            state.writersFinished += 1
            guard state.writersFinished == writerCount else { return ([], nil) }
            if judgesTakeAways, let trip = state.breaker.plannedWholeNight() {
                return ([], state.breakerMayTrip ? trip : nil)
            }
            guard state.stop?.dropsUnwrittenUsers != true else { return ([], nil) }
            state.releaseHeld()
            defer { state.released = [] }
            return (state.released, nil)
        }
        if let trip { stop(Self.end(of: trip)) }
        return users
    }

    /// Restates a spent budget's reason with what is known once the run is done (the users left);
    /// any other stop stands.
    func restateBudgetSpent(_ reason: String) {
        state.withLock { state in
            if case .budgetSpent = state.stop { state.stop = .budgetSpent(reason: reason) }
        }
    }

    /// The run has no more work to classify: the classification judges speak on the whole night (a night
    /// smaller than their window included), then the writers write what there is.
    func classifiedWholeNight() {
        let trip = state.withLock { state -> CircuitBreaker.Trip? in
            let trip = state.breaker.classifiedWholeNight()
            return judgesTakeAways && state.breakerMayTrip ? trip : nil
        }
        if let trip { stop(Self.end(of: trip)) }
        if state.withLock({ $0.gate.open() }) { releaseWriters() }
    }

    /// Blocks a writer until the gate opens.
    func waitForGate() {
        gate.wait()
    }

    private func releaseWriters() {
        for _ in 0..<writerCount { gate.signal() }
    }

    /// How a tripped judge ends the run: a breaker (69), or a mapping that misses products (78).
    private static func end(of trip: CircuitBreaker.Trip) -> RunEnd {
        trip.judge == .unknownProducts ? .productMapping(reason: trip.reason) : .breaker(reason: trip.reason)
    }
}
