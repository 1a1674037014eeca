import AppStoreReceipts
import Foundation
import Postgres

extension ReconciliationEngine {
    /// The night's plan when it is driven by notifications: `--backend server-api` without
    /// `--no-notifications`; nil otherwise.
    func notificationNight(runID: Int64) throws -> NotificationNight? {
        guard let selection = options.notifications, let source = backend.notificationHistory else { return nil }
        return NotificationNight(
            intake: NotificationIntake(source: source, runID: runID, options: options, selection: selection, log: log),
            queue: RunQueue(
                connection: try connect("reader"), runID: runID, shardIndex: options.shardIndex,
                shardCount: options.shardCount, limit: options.limit),
            selection: selection)
    }

    /// Starts reading the history beside the run (`readHistory`) and filling the run's queue with what
    /// does not depend on it (`fillQueue`), then waits until users may be asked: Apple answered the
    /// default app's history without refusing the configuration, or the read ended (a refusal has
    /// stopped the run by then: exit 78 before any user).
    /// - Parameter countDue: the fill counts the queue's receipts once it is whole (the progress's
    ///   "of how many").
    func startNight(
        _ night: NotificationNight, verification: AppleVerification, counters: RunCounters, control: RunControl,
        reconnector: DatabaseReconnector, countDue: Bool
    ) {
        counters.countByReason()
        let (intake, feed) = (night.intake, night.feed)
        Thread.detachNewThread { [self] in
            readHistory(
                intake, feed: feed, verification: verification, counters: counters, control: control,
                reconnector: reconnector)
        }
        let (runID, frontier, selection) = (night.queue.runID, night.queue.frontier, night.selection)
        Thread.detachNewThread { [self] in
            fillQueue(
                runID: runID, frontier: frontier, selection: selection, counters: counters, control: control,
                reconnector: reconnector, countDue: countDue)
        }
        feed.waitUntilConfirmed()
    }

    /// Fills the run's queue range by range on a connection of its own, while its first users are asked;
    /// a dropped connection is reconnected and the range in hand filled again. A run that stops (a
    /// breaker, the budget) lets the fill end, so that the queue's counts say who was left for the next
    /// night; a signal ends it early; a failure stops the run.
    ///
    /// Threading: a thread of its own; `frontier.end` is its last word.
    private func fillQueue(
        runID: Int64, frontier: QueueFrontier, selection: RunOptions.NotificationSelection, counters: RunCounters,
        control: RunControl, reconnector: DatabaseReconnector, countDue: Bool
    ) {
        counters.phases.begin(.queueFill)
        do {
            let fill = RunQueueFill(
                connection: try connect("queue"), runID: runID, shardIndex: options.shardIndex,
                shardCount: options.shardCount, asOf: options.nightInstant, sweepDays: selection.sweepDays,
                olderThanCutoff: selection.olderThanGiven
                    ? Date().addingTimeInterval(-Double(options.olderThan)) : nil,
                frontier: frontier)
            var waited = 0.0
            while !shutdown.isRequested {
                do {
                    guard try fill.fillNext() else { break }
                } catch let error as PostgresError where error.isConnectionFailure {
                    waited += fill.secondsWaited
                    fill.use(try reconnector.reconnect("queue", after: error))
                }
            }
            counters.addDatabaseTime(waited + fill.secondsWaited)
            counters.phases.end(.queueFill)
            if countDue, frontier.current.isComplete { self.countDue(fill, into: counters) }
            frontier.end()
        } catch {
            control.stop(.failed(error, reason: "filling the run's queue failed: \(RunEnd.describe(error))"))
            counters.phases.end(.queueFill)
            frontier.end(error: error)
        }
    }

    /// The progress's "of how many", once the queue is whole. A count that fails costs the estimate,
    /// not the run.
    private func countDue(_ fill: RunQueueFill, into counters: RunCounters) {
        do {
            counters.setDue(receipts: try fill.countDue(limit: options.limit))
        } catch {
            log.log(
                .warning, "run.progress_count_failed", ["run_id": String(fill.runID), "error": RunEnd.describe(error)])
        }
    }

    /// Reads the history into the store, telling `feed` of each piece; a dropped connection is
    /// reconnected and the read resumed from the cursor (what was stored stays, and is not stored
    /// twice). Apple's refusal of the configuration stops the run; so does a read that fails. A
    /// signal ends the read early, as it ends the users'.
    ///
    /// Threading: a thread of its own; `feed.finish` is its last word, after the run was told.
    private func readHistory(
        _ intake: NotificationIntake, feed: NotificationFeed, verification: AppleVerification,
        counters: RunCounters, control: RunControl, reconnector: DatabaseReconnector
    ) {
        counters.phases.begin(.historyRead)
        do {
            var connection = try connect("notifications")
            var outcome: NotificationIntake.Outcome
            while true {
                do {
                    outcome = try intake.read(store: NotificationStore(connection: connection), feed: feed) {
                        walks, window, each in
                        // A signal stops the read after the piece in hand: the cursor stays after the
                        // last piece read whole, and the next night reads on from there.
                        try verification.inOrder(
                            walks, window: window, recordTraffic: { counters.addTraffic($0) },
                            { try each($0) && !shutdown.isRequested })
                    }
                    break
                } catch let error as PostgresError where error.isConnectionFailure {
                    connection = try reconnector.reconnect("notifications", after: error)
                }
            }
            counters.addDatabaseTime(connection.secondsWaited)
            counters.setNotifications(outcome.figures)
            if let refusal = outcome.configuration { control.stop(.appleConfiguration(reason: refusal)) }
            // Before the feed's last word, which the run waits for before it reads the figures.
            counters.phases.end(.historyRead)
            feed.finish()
        } catch {
            control.stop(
                .failed(error, reason: "reading Apple's notification history failed: \(RunEnd.describe(error))"))
            counters.phases.end(.historyRead)
            feed.finish(error: error)
        }
    }

    /// Once the read ended and its users are queued: the queue's users per reason (`recon_runs`, the
    /// summary), the `run.selection` line, and whether the request budget can keep the sweep. Runs once.
    func completeQueue(_ night: NotificationNight, counters: RunCounters) throws {
        guard night.feed.completeQueue() else { return }
        var counts = night.queue.frontier.current.counts ?? RunQueueCounts()
        counts.users = try night.queue.queuedByReason()
        counters.setQueued(
            users: counts.total,
            byReason: Dictionary(uniqueKeysWithValues: DueReason.allCases.map { ($0.rawValue, counts[$0]) }))
        log.log(
            .info, "run.selection",
            [
                "notified": String(counts[.notified]), "new": String(counts[.new]), "sweep": String(counts[.sweep]),
                "older_than": String(counts[.olderThan]), "sweep_quota": String(counts.quota),
                "overdue": String(counts.overdue), "sweep_days": String(night.selection.sweepDays),
            ])
        if let budget {
            // This shard's share of the hours the night may draw on (at least the one it started in).
            let hours = max(1, (budget.waitsUntil.map { $0.timeIntervalSinceNow / 3600 } ?? 0).rounded(.up))
            // An estimate only: a database that cannot say leaves it at the default cost per user.
            let perUser = try? RunStore(connection: night.queue.currentConnection).lastRequestsPerUser(
                shard: options.shard)
            let estimate = SweepBudgetEstimate(
                users: counts.total, requestsPerUser: perUser,
                budget: Int(Double(budget.limit(for: options.environment)) * hours / Double(options.shardCount)))
            guard estimate.isShort else { return }
            log.log(
                .warning, "sweep.budget_short",
                [
                    "needed": String(estimate.needed), "budget": String(estimate.budget),
                    "reason": "the request budget cannot keep --sweep-days \(night.selection.sweepDays)",
                ])
        }
    }

    /// The notifications this run stored about a purchase no row held when it read them: the run may
    /// have verified that purchase since (a new row), and then they name their user after all. On a
    /// connection of its own, beside the finish's flags (`BesideTheFinish`); a dropped connection is
    /// reconnected and the matching (one transaction) done again. A failure costs the figure, not the
    /// run (the next night's intake matches them again).
    func matchNotifications(runID: Int64, counters: RunCounters, reconnector: DatabaseReconnector)
        -> BesideTheFinish
    {
        BesideTheFinish { [self] in
            do {
                var store = NotificationStore(connection: try connect("matching"))
                while true {
                    do {
                        counters.setUnmatchedNotifications(try store.matchAfterRun(runID))
                        return
                    } catch let error as PostgresError where error.isConnectionFailure {
                        store = NotificationStore(connection: try reconnector.reconnect("matching", after: error))
                    }
                }
            } catch {
                log.log(
                    .warning, "notifications.match_failed", ["run_id": String(runID), "error": RunEnd.describe(error)])
            }
        }
    }
}
