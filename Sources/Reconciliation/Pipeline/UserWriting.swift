import Foundation
import Postgres

/// Stage 4, write: decided users are written a batch per transaction by two writer threads, each
/// owning a connection (`UnitWriter`: every user under its advisory lock, its plan made inside the
/// transaction from the rows as they are then). Nothing is written until the run's write gate opens.
///
/// Two writers: each gathers users for up to `UnitWriter.gatherTime` per COMMIT, so one keeps up
/// with a thousand receipts a second; the second overlaps a commit's flush with the next batch. They
/// gather in turn, not both at once: a batch costs about ten statements whatever its size, and two
/// gathering together would make twice as many half-size batches.
///
/// Threading: `put` from any thread (blocks while the queue is full); `finish` from the run's thread.
final class UserWriting: Sendable {
    private let queue: BlockingQueue<UserDecision.Verified>
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
                defer { counters.addDatabaseTime(owned.resource.secondsWaited) }
                while case let batch = Self.inTurn(
                    turn,
                    {
                        queue.take(upTo: UnitWriter.maximumBatch, gather: UnitWriter.gatherTime)
                    }), !batch.isEmpty
                {
                    if control.discardsUnwrittenUsers { continue }
                    Self.write(
                        batch, with: owned.resource, runID: runID, dryRun: options.dryRun, control: control,
                        counters: counters, log: log)
                }
            }
            thread.name = "receipt-recon.writer.\(index)"
            thread.start()
        }
    }

    /// Queues a decided user for writing.
    func put(_ user: UserDecision.Verified) {
        _ = queue.put(user)
    }

    /// No more users: waits until the writers wrote (or, when the run stopped, dropped) every queued one.
    func finish() {
        queue.close()
        threads.wait()
    }

    /// One batch, one transaction. A database error stops the run (69 when the connection is gone).
    private static func write(
        _ batch: [UserDecision.Verified], with writer: UnitWriter, runID: Int64, dryRun: Bool, control: RunControl,
        counters: RunCounters, log: EventLog
    ) {
        let units = batch.map { user in
            UnitWriter.Unit(userID: user.userID) { state in
                // A breaker tripped by an earlier user (of this batch or the other writer's) stops the
                // writing here; a signal lets in-flight users finish.
                if control.discardsUnwrittenUsers { return nil }
                let plan = UserDecision.plan(user, state: state)
                control.written(receipts: user.results.count, revoked: plan.revokes)
                return plan
            }
        }
        do {
            let written = try writer.write(runID: runID, dryRun: dryRun, verifiedAt: Date(), units: units)
            // `written` is a prefix of `batch`, in order.
            for (user, unit) in zip(batch, written) {
                counters.addUser(
                    outcomes: user.results.map(\.outcome), appleStatuses: user.appleStatuses,
                    revoked: unit.plan.revokes)
                counters.addWritten(corrections: unit.plan.corrections, flags: unit.plan.flags)
            }
        } catch let error as PostgresError {
            log.log(.error, "run.database_error", ["run_id": String(runID), "error": "\(error)"])
            control.stop(
                .failed, exitCode: error.isConnectionFailure ? .unavailable : .internalError,
                reason: "database error while writing user results: \(error.description)")
        } catch {
            control.stop(
                .failed, exitCode: .internalError, reason: "internal error while writing user results: \(error)")
        }
    }

    /// `body`, holding `turn` meanwhile.
    private static func inTurn<T>(_ turn: DispatchSemaphore, _ body: () -> T) -> T {
        turn.wait()
        defer { turn.signal() }
        return body()
    }
}
