import Foundation
import Postgres
import ReconSchema

extension UserWriting {
    /// One writer thread's connection and what it does with each batch.
    struct Writer {
        let name: String
        var unitWriter: UnitWriter
        let runID: Int64
        let dryRun: Bool
        let control: RunControl
        let counters: RunCounters
        let log: EventLog
        let locks: RunLocks
        let reconnector: DatabaseReconnector
        /// Seconds waited on connections this writer has since replaced.
        private var waitedBefore = 0.0

        init(
            name: String, unitWriter: UnitWriter, runID: Int64, dryRun: Bool, control: RunControl,
            counters: RunCounters, log: EventLog, locks: RunLocks, reconnector: DatabaseReconnector
        ) {
            self.name = name
            self.unitWriter = unitWriter
            self.runID = runID
            self.dryRun = dryRun
            self.control = control
            self.counters = counters
            self.log = log
            self.locks = locks
            self.reconnector = reconnector
        }

        var secondsWaited: Double { waitedBefore + unitWriter.secondsWaited }

        /// Times a batch is written again after PostgreSQL rolled it back for a deadlock or a
        /// serialization failure, before the run stops with the error.
        static let conflictRetries = 3

        /// One batch, one transaction, written once: after a dropped connection, again on a new one
        /// unless the first attempt's COMMIT had gone through; again after a deadlock. A database that stays away past the
        /// reconnect window, or any other database error, stops the run (69 when the database is
        /// unavailable, 70 otherwise); another run taking over stops it with 75.
        /// - Parameter judged: the revoke judge has already cleared these users (they were held): they are
        ///   planned again and written, not fed to it a second time.
        mutating func write(_ batch: [WritableUser], judged: Bool) {
            // An attempt whose connection dropped around its COMMIT: written or not, to be found out.
            var uncertain: Attempt?
            var conflicts = 0
            while true {
                var attempt: Attempt?
                do {
                    try locks.ensureHeld()
                    if let previous = uncertain {
                        if try committed(previous.written) {
                            count(previous.written)
                            return
                        }
                        previous.withdraw(from: control)
                        uncertain = nil
                    }
                    let current = Attempt()
                    attempt = current
                    _ = try unitWriter.write(
                        runID: runID, dryRun: dryRun, verifiedAt: Date(),
                        units: units(batch, judged: judged, recording: current))
                    count(current.written)
                    return
                } catch let error as PostgresError where error.isConnectionFailure {
                    if let attempt { uncertain = attempt }
                    guard reconnect(after: error) else {
                        uncertain?.withdraw(from: control)
                        return
                    }
                } catch let error as PostgresError
                    where error.isTransactionConflict && conflicts < Self.conflictRetries
                {
                    // Rolled back whole, e.g. a deadlock with the app writing the same entitlement through
                    // a sync trigger (docs/integration.md): nothing was written, so the batch is written
                    // again, planned afresh from the rows as they are then.
                    (uncertain ?? attempt)?.withdraw(from: control)
                    uncertain = nil
                    conflicts += 1
                    log.log(
                        .warning, "run.write_retried",
                        ["run_id": String(runID), "writer": name, "error": error.description])
                } catch let lost as RunLocks.Lost {
                    (uncertain ?? attempt)?.withdraw(from: control)
                    control.stop(.interrupted(reason: lost.description))
                    return
                } catch {
                    (uncertain ?? attempt)?.withdraw(from: control)
                    stop(error)
                    return
                }
            }
        }

        /// The units of `batch`, each planned inside the transaction and, unless `judged`, fed to the revoke
        /// judge, which says whether the user is written now, held for it, or not written; what each plan
        /// fed is recorded in `attempt`, to be taken back if the transaction does not commit.
        private func units(_ batch: [WritableUser], judged: Bool, recording attempt: Attempt) -> [UnitWriter.Unit] {
            let recorder = attempt.recorder
            return batch.map { user in
                UnitWriter.Unit(userID: user.userID, conclusive: user.decided.conclusive) { [control] state in
                    // A breaker tripped by an earlier user (of this batch or the other writer's) stops the
                    // writing here; a signal lets in-flight users finish.
                    if control.discardsUnwrittenUsers { return .stop }
                    let plan = UserDecision.plan(user.decided, state: state)
                    if judged {
                        recorder.written.append((user, plan))
                        return .write(plan)
                    }
                    switch control.planned(user, revoked: plan.revokes, takesAway: plan.takesAway) {
                    case .write:
                        recorder.fed.append((user, plan.revokes, false))
                        recorder.written.append((user, plan))
                        return .write(plan)
                    case .hold:
                        recorder.fed.append((user, plan.revokes, true))
                        return .skip
                    case .stop:
                        return .stop
                    }
                }
            }
        }

        private func count(_ written: [(user: WritableUser, plan: UnitPlan)]) {
            for (user, plan) in written {
                counters.addUser(
                    outcomes: user.decided.results.map(\.outcome), appleStatuses: user.decided.appleStatuses,
                    unverified: (
                        user.decided.transientlyUnverifiedReceipts, user.decided.permanentlyUnverifiedReceipts
                    ),
                    revoked: plan.revokes, reason: user.reason)
                counters.addWritten(corrections: plan.corrections, flags: plan.flags)
            }
        }

        /// Whether the batch's transaction committed before the connection dropped: it wrote every
        /// user's results, flags and corrections together, so any one row of the run for its users
        /// means all of them are in. (An attempt that wrote no user committed nothing worth counting.)
        private func committed(_ written: [(user: WritableUser, plan: UnitPlan)]) throws -> Bool {
            guard !written.isEmpty else { return false }
            let users = written.map(\.user.userID)
            return try RunRows(connection: unitWriter.connection, runID: runID).holdsAny(of: users)
        }

        /// A new connection in place of the dropped one; false when the run must stop instead.
        private mutating func reconnect(after failure: PostgresError) -> Bool {
            do {
                let connection = try reconnector.reconnect(name, after: failure)
                waitedBefore += unitWriter.secondsWaited
                unitWriter = UnitWriter(connection: connection)
                return true
            } catch {
                stop(error)
                return false
            }
        }

        private func stop(_ error: any Error) {
            if let error = error as? PostgresError {
                log.log(.error, "run.database_error", ["run_id": String(runID), "error": "\(error)"])
                let advice =
                    error.sqlState == "25006"
                    ? " (the database is read-only: a standby after a failover, or default_transaction_read_only; "
                        + "point DATABASE_URL at the primary)" : ""
                control.stop(
                    .failed(
                        reason:
                            "database error while writing user results: \(DatabaseErrorAdvice.describe(error))\(advice)",
                        exitCode: ExitCode.forDatabase(error)))
            } else {
                control.stop(
                    .failed(reason: "internal error while writing user results: \(error)", exitCode: .internalError))
            }
        }
    }

    /// What one attempt at a batch planned, wrote and fed the revoke judge.
    struct Attempt {
        /// Filled on the writer's own thread, inside its transaction.
        final class Recorder {
            /// The users the transaction writes, with their plans.
            var written: [(user: WritableUser, plan: UnitPlan)] = []
            /// The users fed to the judge: whether each revoked and was held.
            var fed: [(user: WritableUser, revoked: Bool, held: Bool)] = []
        }

        let recorder = Recorder()
        var written: [(user: WritableUser, plan: UnitPlan)] { recorder.written }

        /// Takes back what the attempt fed the revoke judge and held: its transaction did not commit.
        func withdraw(from control: RunControl) {
            for (user, revoked, held) in recorder.fed { control.withdrawn(user, revoked: revoked, held: held) }
            recorder.fed.removeAll()
        }
    }
}
