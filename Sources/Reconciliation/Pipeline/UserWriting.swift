import Foundation
import Postgres

/// Stage 4, write: decided users are written a batch per transaction by two writer threads, each
/// owning a connection (`UnitWriter`: every user under its advisory lock, its plan made inside the
/// transaction from the rows as they are then). Nothing is written until the run's write gate opens,
/// and a user whose plan takes access away waits, unwritten, until the revoke judge has spoken on the
/// users it covers (`RunControl.planned`): the writers write the users it clears before anything
/// queued, and the last writer to run out of users writes those a whole night's judgement cleared.
///
final class UserWriting: Sendable {
    private let queue: BlockingQueue<WritableUser>
    private let threads = DispatchGroup()

    /// Opens the writers' connections (so a database that is gone fails the run before any work) and
    /// starts their threads, which wait for the gate.
    init(
        runID: Int64,
        options: RunOptions,
        control: RunControl,
        counters: RunCounters,
        log: EventLog,
        writerCount: Int,
        locks: RunLocks,
        reconnector: DatabaseReconnector,
        connect: (String) throws -> PostgresConnection
    ) throws {
        let capacity = max(256, options.concurrency * 4)
        queue = BlockingQueue(capacity: capacity, refill: capacity - 1)
        let turn = DispatchSemaphore(value: 1)
        for index in 0..<writerCount {
            let owned = ThreadOwned(UnitWriter(connection: try connect("writer \(index)")))
            threads.enter()
            let thread = Thread { [queue, threads] in
                defer { threads.leave() }
                control.waitForGate()
                var writer = Writer(
                    name: "writer \(index)", unitWriter: owned.resource, runID: runID, dryRun: options.dryRun,
                    control: control, counters: counters, log: log, locks: locks, reconnector: reconnector)
                defer { counters.addDatabaseTime(writer.secondsWaited) }
                func write(_ users: [WritableUser], judged: Bool) {
                    counters.phases.measure(.write) { writer.write(users, judged: judged) }
                }
                while true {
                    let cleared = control.releasedUsers(upTo: UnitWriter.maximumBatch)
                    if !cleared.isEmpty {
                        write(cleared, judged: true)
                        continue
                    }
                    let batch = Self.inTurn(turn) {
                        queue.take(upTo: UnitWriter.maximumBatch, gather: UnitWriter.gatherTime)
                    }
                    if batch.isEmpty { break }
                    if control.discardsUnwrittenUsers { continue }
                    write(batch, judged: false)
                }
                let cleared = control.writerFinished()
                for start in stride(from: 0, to: cleared.count, by: UnitWriter.maximumBatch) {
                    if control.discardsUnwrittenUsers { break }
                    write(Array(cleared[start..<min(start + UnitWriter.maximumBatch, cleared.count)]), judged: true)
                }
            }
            thread.name = "receipt-recon.writer.\(index)"
            thread.start()
        }
    }

    /// Queues a decided user for writing; `reason`: why the run took it.
    func put(_ user: UserDecision.Verified, reason: DueReason?) {
        _ = queue.put(WritableUser(decided: user, reason: reason))
    }

    /// No more users: waits until the writers wrote (or, when the run stopped, dropped) every queued one.
    func finish() {
        queue.close()
        threads.wait()
    }

    /// `body`, holding `turn` meanwhile.
    private static func inTurn<T>(_ turn: DispatchSemaphore, _ body: () -> T) -> T {
        turn.wait()
        defer { turn.signal() }
        return body()
    }
}
