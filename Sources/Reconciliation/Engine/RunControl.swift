import Dispatch
import Foundation
import Synchronization

/// The run's stop decisions and the write gate, shared by lanes and writers (CONTRACT §6, §7).
///
/// - A stop (breaker, 21004/21000, database failure) is decided once; the first reason wins.
/// - The write gate opens when 100 receipts were classified, or when the run has no more work:
///   until then nothing is written, so a breaker or a configuration error that shows up early stops
///   the run before any correction.
final class RunControl: Sendable {
    struct Stop: Sendable {
        let status: RunStatus
        let exitCode: Int32
        let reason: String
    }

    private struct State {
        var stop: Stop?
        var classifiedReceipts = 0
        var unverifiedReceipts = 0
        var writtenUsers = 0
        var writtenReceipts = 0
        var revokedUsers = 0
        var gateOpen = false
    }

    private let state = Mutex(State())
    private let gate = DispatchSemaphore(value: 0)
    private let writerCount: Int
    let options: RunOptions
    static let breakerMinimumReceipts = 100

    init(options: RunOptions, writerCount: Int) {
        self.options = options
        self.writerCount = writerCount
    }

    var stopDecision: Stop? { state.withLock { $0.stop } }
    var isStopping: Bool { stopDecision != nil }
    /// Users not yet written are dropped: the run stopped for anything but a signal (a signal lets
    /// what is in flight finish, CONTRACT §6).
    var discardsUnwrittenUsers: Bool { stopDecision.map { $0.status != .interrupted } ?? false }

    /// Stops the run for `reason` unless it was already stopped.
    func stop(_ status: RunStatus, exitCode: Int32, reason: String) {
        let opened = state.withLock { state -> Bool in
            if state.stop == nil { state.stop = Stop(status: status, exitCode: exitCode, reason: reason) }
            return openGateLocked(&state)
        }
        if opened { releaseWriters() }
    }

    /// A lane classified a user's receipts; trips the unverified-ratio breaker when due.
    func classified(receipts: Int, unverified: Int) {
        let (trip, opened) = state.withLock { state -> (String?, Bool) in
            state.classifiedReceipts += receipts
            state.unverifiedReceipts += unverified
            guard state.classifiedReceipts >= Self.breakerMinimumReceipts else { return (nil, false) }
            let ratio = Double(state.unverifiedReceipts) / Double(state.classifiedReceipts)
            if ratio > options.maxUnverifiedRatio, state.stop == nil {
                return (String(format: "circuit breaker: %d of %d receipts unverified (%.2f) exceeds --max-unverified-ratio %.2f",
                               state.unverifiedReceipts, state.classifiedReceipts, ratio, options.maxUnverifiedRatio), false)
            }
            return (nil, openGateLocked(&state))
        }
        if let trip { stop(.aborted, exitCode: 69, reason: trip) }
        if opened { releaseWriters() }
    }

    /// A writer wrote a user; trips the revoke-ratio breaker when due. The ratio is over written
    /// users (whose plans are known), once their receipts reach the minimum: a ratio over the first
    /// handful of users would trip on noise.
    func written(receipts: Int, revoked: Bool) {
        let trip = state.withLock { state -> String? in
            state.writtenUsers += 1
            state.writtenReceipts += receipts
            if revoked { state.revokedUsers += 1 }
            guard state.writtenReceipts >= Self.breakerMinimumReceipts, state.stop == nil else { return nil }
            let ratio = Double(state.revokedUsers) / Double(state.writtenUsers)
            guard ratio > options.maxRevokeRatio else { return nil }
            return String(format: "circuit breaker: %d of %d users revoked (%.2f) exceeds --max-revoke-ratio %.2f",
                          state.revokedUsers, state.writtenUsers, ratio, options.maxRevokeRatio)
        }
        if let trip { stop(.aborted, exitCode: 69, reason: trip) }
    }

    /// The run has no more work to classify: let the writers write what there is.
    func openGate() {
        if state.withLock({ openGateLocked(&$0) }) { releaseWriters() }
    }

    /// Blocks a writer until the gate opens.
    func waitForGate() {
        gate.wait()
    }

    private func openGateLocked(_ state: inout State) -> Bool {
        guard !state.gateOpen else { return false }
        state.gateOpen = true
        return true
    }

    private func releaseWriters() {
        for _ in 0..<writerCount { gate.signal() }
    }
}
