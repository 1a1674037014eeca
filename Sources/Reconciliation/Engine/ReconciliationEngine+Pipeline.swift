import AppStoreReceipts
import Foundation
import Postgres
import Synchronization

extension ReconciliationEngine {
    /// Runs the lanes and writers over the users `produce` emits (on the calling thread), then
    /// finishes the run row. `emit` returns false when the run is stopping and wants no more users.
    func execute(
        runID: Int64,
        kind: RunKind,
        store: RunStore,
        subjectUserID: String?,
        producerDatabaseSeconds: () -> Double = { 0 },
        produce: (_ emit: (UserWork) -> Bool) throws -> Void
    ) throws -> Outcome {
        var initial = RunSummary()
        initial.runID = runID
        initial.kind = kind.rawValue
        initial.dryRun = options.dryRun
        initial.asOf = options.asOf
        initial.shard = kind == .nightly ? options.shard : "user"
        initial.startedAt = Date()
        let counters = RunCounters(summary: initial)
        // Two writers: each gathers up to `UnitWriter.gatherTime` of users per COMMIT, so one keeps up
        // with a thousand receipts a second (measured: busy about a tenth of the time at 400); the second
        // overlaps a commit's flush with the next batch. They gather in turn, not both at once: a batch
        // costs about ten statements whatever its size, and two gathering together made twice as many
        // half-size batches.
        let writerCount = max(1, min(2, options.concurrency))
        let gatheringTurn = DispatchSemaphore(value: 1)
        let control = RunControl(options: options, writerCount: writerCount)
        let catalog = try Self.loadCatalog(store.connection)
        let context = ReceiptOutcomeContext(servedEnvironment: options.environment, acceptedBundleIDs: Set(options.bundleIDs))
        let checker = ReceiptChecker(client: client)
        let lanes = LaneScheduler<UserWork>(lanes: options.concurrency, capacity: max(16, options.concurrency * 2))
        let preparedCapacity = max(256, options.concurrency * 4)
        let preparedUsers = BlockingQueue<UnitBuilder.PreparedUser>(capacity: preparedCapacity, refill: preparedCapacity - 1)
        let shutdown = self.shutdown
        let options = self.options
        let log = self.log

        // Writers: connections opened here, so a database that is gone fails the run before any work.
        let writers = DispatchGroup()
        for index in 0..<writerCount {
            let owned = ThreadOwned(UnitWriter(connection: try connect("writer \(index)")))
            writers.enter()
            let thread = Thread {
                defer { writers.leave() }
                control.waitForGate()
                defer { counters.addDatabaseTime(owned.resource.secondsWaited) }
                while case let batch = Self.inTurn(gatheringTurn, {
                    preparedUsers.take(upTo: UnitWriter.maximumBatch, gather: UnitWriter.gatherTime)
                }), !batch.isEmpty {
                    if control.discardsUnwrittenUsers { continue }
                    do {
                        let units = batch.map { user in
                            UnitWriter.Unit(userID: user.userID) { state in
                                // A breaker tripped by an earlier user (of this batch or another
                                // writer's) stops the writing here; a signal lets in-flight users finish.
                                if control.discardsUnwrittenUsers { return nil }
                                let planned = UnitBuilder.plan(user, state: state)
                                let plan = UnitWriter.UnitPlan(results: user.results, transactions: user.transactions,
                                                               flags: user.receiptFlags + planned.flags,
                                                               corrections: planned.corrections, sharedScan: user.sharedScan)
                                control.written(receipts: user.results.count, revoked: plan.revokes)
                                return plan
                            }
                        }
                        let written = try owned.resource.write(runID: runID, dryRun: options.dryRun, verifiedAt: Date(), units: units)
                        // `written` is a prefix of `batch`, in order.
                        for (user, unit) in zip(batch, written) {
                            counters.addUser(outcomes: user.results.map(\.outcome), appleStatuses: user.appleStatuses,
                                             revoked: unit.plan.revokes)
                            counters.addWritten(corrections: unit.plan.corrections, flags: unit.plan.flags)
                        }
                    } catch let error as PostgresError {
                        log.log(.error, "run.database_error", ["run_id": String(runID), "error": "\(error)"])
                        control.stop(.failed, exitCode: error.isConnectionFailure ? 69 : 70,
                                     reason: "database error while writing user results: \(error.description)")
                    } catch {
                        control.stop(.failed, exitCode: 70, reason: "internal error while writing user results: \(error)")
                    }
                }
            }
            thread.name = "receipt-recon.writer.\(index)"
            thread.start()
        }

        // Lanes: each verifies one user's receipts at a time. A lane is not a thread: the reader starts a
        // user when a lane is idle, and the workers carry on from each answer (`LaneScheduler`, `WorkerPool`).
        let workers = WorkerPool(threads: max(1, min(options.concurrency, ProcessInfo.processInfo.activeProcessorCount)),
                                 name: "receipt-recon.worker")
        let lane = UserLane(
            checker: checker,
            shouldStop: { control.isStopping },
            onAppleTraffic: { counters.addTraffic($0) },
            executor: { workers.submit($0) },
            finish: { user in
                // Stopping: what was checked is not written (the run's results stop where it stopped).
                if control.isStopping { return }
                do {
                    let prepared = try UnitBuilder.prepare(work: user.work, checks: user.checks, context: context,
                                                           catalog: catalog, options: options)
                    let unverified = prepared.receipts.filter { $0.outcome == .unverified }.count
                    preparedUsers.put(prepared)
                    control.classified(receipts: prepared.receipts.count, unverified: unverified)
                } catch {
                    log.log(.error, "run.configuration_error", ["run_id": String(runID), "error": "\(error)"])
                    control.stop(.aborted, exitCode: 78, reason: "Apple reported a configuration error: \(error)")
                }
            },
            next: {
                // Stopping: queued users are not in flight; drop them.
                while let work = lanes.next() {
                    if !(control.isStopping || shutdown.isRequested) { return work }
                }
                return nil
            })

        // Progress, about once a second, from its own thread.
        let finished = Atomic<Bool>(false)
        if let progress {
            Thread.detachNewThread {
                while !finished.load(ordering: .acquiring) {
                    progress(counters.snapshot())
                    Thread.sleep(forTimeInterval: 1)
                }
            }
        }

        var produceError: (any Error)?
        do {
            try produce { work in
                guard !control.isStopping, !shutdown.isRequested else { return false }
                counters.addSelected(users: 1, receipts: work.receipts.count)
                switch lanes.admit(work) {
                case .run(let work):
                    lane.run(work)
                    return true
                case .queued: return true
                case .closed: return false
                }
            }
        } catch {
            produceError = error
            let reason = (error as? PostgresError)?.description ?? "\(error)"
            control.stop(.failed, exitCode: (error as? PostgresError)?.isConnectionFailure == true ? 69 : 70,
                         reason: "reading due receipts failed: \(reason)")
        }
        lanes.close()
        counters.addDatabaseTime(producerDatabaseSeconds())
        lanes.waitUntilIdle()
        workers.close()
        if shutdown.isRequested {
            control.stop(.interrupted, exitCode: 75, reason: "\(shutdown.name ?? "a signal") received: stopped taking work, finished what was in flight")
        }
        control.openGate()
        preparedUsers.close()
        writers.wait()
        finished.store(true, ordering: .releasing)

        return try finish(runID: runID, kind: kind, store: store, counters: counters, control: control,
                          subjectUserID: subjectUserID, produceError: produceError)
    }

    private func finish(
        runID: Int64,
        kind: RunKind,
        store: RunStore,
        counters: RunCounters,
        control: RunControl,
        subjectUserID: String?,
        produceError: (any Error)?
    ) throws -> Outcome {
        let finalizer = RunFinalizer(connection: store.connection)
        var summary = counters.snapshot()
        let status: RunStatus
        var exitCode: Int32
        var reason: String?
        if let stop = control.stopDecision {
            (status, exitCode, reason) = (stop.status, stop.exitCode, stop.reason)
            try finalizer.flagSharedTransactions(runID: runID, flag: false)
        } else {
            try finalizer.flagSharedTransactions(runID: runID, flag: true)
            try finalizer.flagEntitlementsWithoutReceipt(runID: runID, shardIndex: options.shardIndex,
                                                        shardCount: options.shardCount, userID: subjectUserID)
            status = summary.unverified > 0 ? .partial : .completed
            exitCode = summary.unverified > 0 ? 1 : 0
        }
        let written = try finalizer.writtenFigures(runID: runID)
        // The run row's own connection: start, lock, finalising (the last write is not counted).
        summary.databaseSeconds = (summary.databaseSeconds ?? 0) + store.connection.secondsWaited
        summary.corrections = written.corrections
        summary.flags = written.flags
        summary.status = status.rawValue
        summary.exitCode = exitCode
        summary.abortReason = reason
        summary.finishedAt = Date()
        try store.finish(runID: runID, status: status, exitCode: exitCode, abortReason: reason, summary: summary)
        log.log(status == .completed || status == .partial ? .info : .warning, "run.finished", [
            "run_id": String(runID), "status": status.rawValue, "exit_code": String(exitCode),
            "receipts": String(summary.receiptsProcessed), "corrections": String(summary.correctionCount),
            "unverified": String(summary.unverified), "reason": reason ?? "",
        ])
        if status == .failed, exitCode == 70, let produceError { throw produceError }
        return Outcome(summary: summary, exitCode: exitCode)
    }

    /// `body`, holding `turn` meanwhile.
    private static func inTurn<T>(_ turn: DispatchSemaphore, _ body: () -> T) -> T {
        turn.wait()
        defer { turn.signal() }
        return body()
    }

    /// `products`, read once per run.
    static func loadCatalog(_ connection: PostgresConnection) throws -> ProductCatalog {
        let rows = try connection.query("SELECT product_id, kind, entitlement, duration FROM products")
        return ProductCatalog(try rows.compactMap { row in
            guard let kind = ProductKind(rawValue: try row.decode("kind")) else { return nil }
            let duration: PostgresInterval? = try row.decode("duration")
            return Product(productID: try row.decode("product_id"), kind: kind, entitlement: try row.decode("entitlement"),
                           duration: duration.map { ProductDuration(months: $0.months, days: $0.days, microseconds: $0.microseconds) })
        })
    }
}
