import AppStoreReceipts
import Foundation
import Postgres

extension ReconciliationEngine {
    /// The run's five stages, wired: select due users → verify them with Apple → decide → write one
    /// user per transaction (a batch of users per COMMIT) → finish the run. `run` and `verify-user`
    /// differ only in what they select.
    ///
    /// The reader (this thread) selects and admits users; the verification stage's workers decide
    /// each user as its answer arrives and queue it for the writers. Stopping (a breaker, 21004, a
    /// database failure) stops the selection, drops what is queued and unwritten; a signal stops the
    /// selection and lets what is in flight finish.
    func executeStages(
        runID: Int64, kind: RunKind, locks: RunLocks, reconnector: DatabaseReconnector,
        selection: DueUserSelection, subjectUserID: String?
    ) throws -> RunOutcome {
        let counters = RunCounters(summary: startingSummary(runID: runID, kind: kind))
        let writerCount = max(1, min(2, options.concurrency))
        let control = RunControl(
            breaker: CircuitBreaker(
                maxUnverifiedRatio: options.maxUnverifiedRatio, maxRevokeRatio: options.maxRevokeRatio),
            writerCount: writerCount, judgesTakeAways: kind == .nightly)
        let settings = UserDecision.Settings(
            catalog: try locks.withConnection { try ProductCatalog.load(from: $0) },
            sandboxPolicy: options.sandboxPolicy, asOf: options.asOf)
        let (shutdown, log) = (self.shutdown, self.log)

        let writing = try UserWriting(
            runID: runID, options: options, control: control, counters: counters, log: log,
            writerCount: writerCount, locks: locks, reconnector: reconnector, connect: connect)
        let deciding = UserDeciding(
            runID: runID, settings: settings, control: control, counters: counters, writing: writing, log: log)
        let verification = AppleVerification(
            backend: backend, driver: driver, concurrency: options.concurrency,
            isDraining: { control.isStopping },
            dropsQueuedUsers: { control.isStopping || shutdown.isRequested },
            recordTraffic: { counters.addTraffic($0, reason: $1.reason) },
            budgetSpent: { [budget] key in
                if let error = budget?.lastError {
                    control.stop(
                        .failed(error, reason: "the request budget could not be counted: \(RunEnd.describe(error))"))
                    return
                }
                counters.budgetSpent(key.description)
                let limit = budget?.limit(for: key.environment) ?? 0
                guard kind == .nightly else {
                    // One user on demand is not a night that goes on tomorrow: support must not read
                    // "no correction" where Apple was never asked.
                    control.stop(
                        .failed(
                            reason: BudgetFigures.spentForUserLine(limit: limit, key: key),
                            exitCode: .unavailable))
                    return
                }
                control.stop(
                    .budgetSpent(
                        reason: BudgetFigures.spentLine(limit: limit, key: key, usersLeft: nil)))
            },
            verified: { deciding.decide($0, $1) })
        var selectionError: (any Error)?
        if case .queued(let night, _) = selection {
            startNight(
                night, verification: verification, counters: counters, control: control, reconnector: reconnector,
                countDue: progress != nil)
        }
        // Apple refused the configuration, or the history could not be read or the queue filled, before any
        // user was asked: the run selects nobody.
        let selectsUsers = selectionError == nil && !control.isStopping
        counters.phases.begin(.verification)
        var progressThread: ProgressThread?
        if let progress {
            countDue(selection, into: counters, runID: runID)
            progressThread = ProgressThread(counters: counters, interval: progressInterval, report: progress)
        }

        if selectsUsers {
            do {
                let queueComplete = { [self] in
                    if case .queued(let night, _) = selection { try completeQueue(night, counters: counters) }
                }
                try selection.forEachUser(queueComplete: queueComplete) { user in
                    guard !control.isStopping, !shutdown.isRequested else { return false }
                    counters.addSelected(users: 1, receipts: user.receipts.count)
                    return verification.admit(user)
                }
            } catch {
                selectionError = error
                control.stop(.failed(error, reason: "reading due receipts failed: \(RunEnd.describe(error))"))
            }
        }
        if case .queued(let night, let reconnector) = selection {
            // The read shares the verification's workers: it ends before they do. The fill ends too, so
            // that the queue's counts are whole.
            night.feed.waitUntilFinished()
            night.queue.frontier.waitUntilEnded()
            let fillError = night.queue.frontier.current.error
            if selectionError == nil, let error = night.feed.error ?? fillError { selectionError = error }
            if selectsUsers, night.feed.error == nil, fillError == nil {
                do {
                    try night.queueTheRest(reconnector: reconnector)
                    try completeQueue(night, counters: counters)
                } catch {
                    log.log(
                        .warning, "run.selection_count_failed",
                        ["run_id": String(runID), "error": RunEnd.describe(error)])
                }
            }
        }
        counters.addDatabaseTime(selection.databaseSeconds)
        verification.finish()
        counters.phases.end(.verification)
        if shutdown.isRequested {
            control.stop(
                .interrupted(
                    reason: "\(shutdown.name ?? "a signal") received: stopped taking work, finished what was in flight")
            )
        }
        control.classifiedWholeNight()
        writing.finish()
        counters.phases.begin(.finish)
        progressThread?.stop()
        var matching: BesideTheFinish?
        if case .queued = selection, !options.dryRun {
            matching = matchNotifications(runID: runID, counters: counters, reconnector: reconnector)
        }
        if let budget {
            let granted = budget.figures
            var summary = BudgetFigures(maxRequestsPerHour: granted.limit)
            summary.sandboxMaxRequestsPerHour = granted.sandboxLimit
            summary.grantedByEndpoint = granted.endpoints.mapValues(\.granted).filter { $0.value > 0 }
            let figures = counters.setBudget(summary)
            if let spent = figures.spentEndpoint, let key = AppleLimitKey(description: spent), case .queued = selection
            {
                // Said once the run is done: the users the queue held that this run did not verify.
                let left = counters.leaveQueuedUsers()
                control.restateBudgetSpent(
                    BudgetFigures.spentLine(limit: budget.limit(for: key.environment), key: key, usersLeft: left))
            }
        }
        if case .queued = selection { counters.leaveQueuedUsers() }

        let outcome = try RunFinish(runID: runID, kind: kind, options: options, log: log, beside: matching)
            .finish(counters: counters, control: control, locks: locks, subjectUserID: subjectUserID)
        if outcome.exitCode == .internalError, let selectionError { throw selectionError }
        return outcome
    }
}

extension ReconciliationEngine {
    /// The progress's "of how many". Without it the only total is what the walk has read so far, a few
    /// pages ahead of what is done, and the time left always looked like none. A count that fails
    /// costs the estimate, not the run (the walk reconnects on its own if the connection went).
    fileprivate func countDue(_ selection: DueUserSelection, into counters: RunCounters, runID: Int64) {
        // A night's queue is counted by its fill, once it is whole (`startNight`).
        if case .queued = selection { return }
        do {
            counters.setDue(receipts: try selection.countDue())
        } catch {
            log.log(
                .warning, "run.progress_count_failed",
                ["run_id": String(runID), "error": (error as? PostgresError)?.description ?? "\(error)"])
        }
    }
}

/// Reports the run's progress every `interval` seconds from its own thread, never after `stop()`
/// returned: a line drawn or logged after the run's summary would contradict it.
private final class ProgressThread: Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    init(counters: RunCounters, interval: Double, report: @escaping @Sendable (RunProgress) -> Void) {
        Thread.detachNewThread { [self] in
            while wake.wait(timeout: .now() + interval) == .timedOut {
                report(counters.progress())
            }
            exited.signal()
        }
    }

    /// Stops the reports and waits for one in progress to end.
    func stop() {
        wake.signal()
        exited.wait()
    }
}
