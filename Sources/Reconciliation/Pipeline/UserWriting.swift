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
/// A dropped connection does not end the run: the writer reconnects (`DatabaseReconnector`), confirms
/// the run still holds its locks (`RunLocks`), and writes the batch again unless its transaction had
/// committed before the drop; every plan is made again inside the new transaction.
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
                while case let batch = Self.inTurn(
                    turn,
                    {
                        queue.take(upTo: UnitWriter.maximumBatch, gather: UnitWriter.gatherTime)
                    }), !batch.isEmpty
                {
                    if control.discardsUnwrittenUsers { continue }
                    writer.write(batch)
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

    /// `body`, holding `turn` meanwhile.
    private static func inTurn<T>(_ turn: DispatchSemaphore, _ body: () -> T) -> T {
        turn.wait()
        defer { turn.signal() }
        return body()
    }
}
