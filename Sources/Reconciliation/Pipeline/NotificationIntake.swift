import AppStoreReceipts
import CivilTime
import Foundation
import Postgres

/// Stage 0 of a night driven by notifications (`--backend server-api`): read Apple's notification
/// history from where the shard set's last run stopped, store every notification that verifies with
/// the users it names, and move the cursor (CONTRACT §9 "Notification history"). Those users are then
/// due whatever `--older-than` says (`RunQueue`).
///
/// One shard of a set reads at a time (`NotificationStore.lockReader`); a shard that then finds the
/// cursor just moved reads nothing and takes the users already stored. The span is read in pieces of
/// at most `piece`, one walk each, `parallelPieces` at once (Apple's latency is paid per page, and a
/// first night's three days are hundreds of pages); each piece is stored in order as it is read, and
/// the cursor moves over it when it was read whole; the first that was not holds the cursor and ends
/// the read: a failure costs that piece's reread, a page cap never blocks progress, and nothing
/// assumes Apple's order within a walk.
/// A record read twice (the overlap, a crash before the cursor moved) is the same row
/// (`notification_uuid`), and is acted on only while its users are still pending. Memory holds at
/// most `parallelPieces` pieces of notifications.
///
/// A dry run reads but writes neither notifications nor the cursor: the users named go straight to
/// its selection (`Outcome.dryRunNotified`).
///
/// The run does not wait for the read (`NotificationFeed`): once Apple answered a page of the default
/// app's history (the first piece's first page) without refusing the configuration, users are asked
/// beside it, and each stored piece's users join the run's queue.
///
/// Threading: a thread of the run's own, beside the selection; it waits for each walk.
struct NotificationIntake {
    /// Read again before the cursor: a record Apple indexes late is not skipped.
    static let overlap: TimeInterval = 3600
    /// The history ends this long before the run's instant: the newest records may not be indexed yet.
    static let settle: TimeInterval = 60
    static let piece: TimeInterval = 3600
    static let parallelPieces = 8
    /// A cursor this close to the end was moved by another shard of the set tonight.
    static let fresh: TimeInterval = 600
    /// How long a shard waits for another shard of its set to finish reading.
    static let lockTimeoutSeconds = 600.0
    /// Unmatched notifications are matched again for this long: the app may store a purchase late.
    static let rematchWindow: TimeInterval = 7 * 86_400

    /// How far back Apple answers (research/server-api.md §9), less an hour so the request is never
    /// refused for a start a moment too early.
    static func reach(_ environment: AppStoreEnvironment) -> TimeInterval {
        (environment == .sandbox ? 30 : 180) * 86_400 - 3600
    }

    struct Outcome {
        var figures = NotificationFigures()
        /// A dry run's notified users (a real run stored them as pending).
        var dryRunNotified: Set<String> = []
        /// Apple refused the job's configuration (401 after a fresh token, 4000002): exit 78.
        var configuration: String?
    }

    let source: NotificationHistorySource
    let runID: Int64
    let options: RunOptions
    let selection: RunOptions.NotificationSelection
    let log: EventLog

    /// Drives walks, `window` at once, handing each read to the closure in order until it returns false.
    typealias Walker = (
        _ walks: [NotificationHistoryWalk], _ window: Int, _ each: (NotificationHistoryRead) throws -> Bool
    ) throws -> Void

    /// The end of the history a run reads: its instant (`--as-of`, else its start), but never past the
    /// present, less `settle`. Apple answers a future `endDate` as now, so a cursor moved to a future
    /// `--as-of` would skip, on the nights after, what happened between now and then.
    static func end(asOf: Date, now: Date) -> Date {
        min(asOf, now).addingTimeInterval(-settle)
    }

    /// Reads every app's history into `store`; `walk` drives the reads, and `feed` hears of each stored
    /// piece and of the configuration's answer.
    func read(store: NotificationStore, feed: NotificationFeed? = nil, now: Date = Date(), walk: Walker) throws
        -> Outcome
    {
        var outcome = Outcome()
        let end = Self.end(asOf: options.nightInstant, now: now)
        // Apple's verifier cannot be made for a production app without its Apple ID: nothing it reads
        // could be believed.
        if let missing = source.appsWithoutAppleID.first {
            outcome.configuration =
                "APPLE_APP_APPLE_IDS has no Apple ID for \(missing): production notifications are checked against it"
            return outcome
        }
        for bundleID in source.bundleIDs {
            let key = NotificationCursorKey(
                shardCount: options.shardCount, environment: source.environment, bundleID: bundleID)
            guard try store.lockReader(key, timeoutSeconds: Self.lockTimeoutSeconds) else {
                outcome.figures.skipped = "another shard of the set was still reading after 10 minutes"
                log.log(.warning, "notifications.lock_timeout", ["run_id": String(runID), "bundle_id": bundleID])
                if bundleID == source.defaultBundleID { feed?.confirm() }
                continue
            }
            defer { try? store.unlockReader(key) }
            try read(key: key, end: end, store: store, walk: walk, feed: feed, into: &outcome)
            if outcome.configuration != nil { return outcome }
            // Nothing was left to ask, or Apple answered: the configuration stands.
            if bundleID == source.defaultBundleID { feed?.confirm() }
        }
        if !options.dryRun {
            let matched = try store.resolveUnmatched(receivedSince: end.addingTimeInterval(-Self.rematchWindow))
            if matched > 0 {
                log.log(
                    .info, "notifications.matched_late", ["run_id": String(runID), "notifications": String(matched)])
            }
            _ = try store.deleteExpired(signedBefore: end.addingTimeInterval(-Self.reach(.production)))
        }
        return outcome
    }

    private func read(
        key: NotificationCursorKey, end: Date, store: NotificationStore,
        walk: Walker, feed: NotificationFeed?, into outcome: inout Outcome
    ) throws {
        let cursor = try store.readThrough(key)
        if let cursor, cursor >= end.addingTimeInterval(-Self.fresh) {
            outcome.figures.skipped = "the cursor was read through \(Self.text(cursor)) by another run"
            return
        }
        var start =
            cursor.map { $0.addingTimeInterval(-Self.overlap) } ?? end.addingTimeInterval(-Double(selection.since))
        let earliest = end.addingTimeInterval(-Self.reach(key.environment))
        if start < earliest {
            // Apple keeps no older history: what changed before is left to the sweep.
            log.log(
                .warning, "notifications.window_clamped",
                ["run_id": String(runID), "from": Self.text(start), "to": Self.text(earliest)])
            start = earliest
        }
        guard start < end else { return }
        outcome.figures.from = min(outcome.figures.from ?? start, start)
        var pieces: [(start: Date, end: Date)] = []
        while (pieces.last?.end ?? start) < end {
            let from = pieces.last?.end ?? start
            pieces.append((from, min(end, from.addingTimeInterval(Self.piece))))
        }
        // The default app's first page answered is Apple's word on the configuration: users need not
        // wait for the rest of the first piece (a first night's first hour of a big app is many pages).
        // Only the first piece's: the pieces are taken in order, so a refusal of it is the night's answer.
        var confirm: (@Sendable () -> Void)?
        if key.bundleID == source.defaultBundleID, let feed { confirm = { feed.confirm() } }
        var walks: [NotificationHistoryWalk] = []
        for piece in pieces {
            walks.append(
                source.client.notificationHistory(
                    bundleID: key.bundleID, audience: source.audience, from: piece.start, to: piece.end,
                    firstPageRead: walks.isEmpty ? confirm : nil))
        }
        var index = 0
        try walk(walks, Self.parallelPieces) { read in
            let piece = pieces[index]
            index += 1
            switch read {
            case .complete(let batch):
                try take(batch, store: store, feed: feed, into: &outcome)
                if !options.dryRun { try store.advance(key, to: piece.end, runID: runID) }
                outcome.figures.through = piece.end
                return true
            case .incomplete(let batch, let detail):
                // What was read is acted on; the cursor stays here, and the next run reads on from it.
                try take(batch, store: store, feed: feed, into: &outcome)
                outcome.figures.incomplete = "\(Self.text(piece.start)) to \(Self.text(piece.end)): \(detail)"
                log.log(
                    .warning, "notifications.incomplete",
                    ["run_id": String(runID), "bundle_id": key.bundleID, "detail": detail])
                return false
            case .configuration(let detail):
                // As for a row (CONTRACT §9): only the default app's refusal says the job is misconfigured.
                guard key.bundleID == source.defaultBundleID else {
                    outcome.figures.incomplete = "Apple refused the key for \(key.bundleID): \(detail)"
                    log.log(
                        .warning, "notifications.refused",
                        ["run_id": String(runID), "bundle_id": key.bundleID, "detail": detail])
                    return false
                }
                outcome.configuration = "Apple refused Get Notification History for \(key.bundleID): \(detail)"
                return false
            }
        }
    }

    /// Stores one walk's notifications (a dry run only finds their users), counts them, and tells `feed`.
    private func take(
        _ batch: NotificationBatch, store: NotificationStore, feed: NotificationFeed?, into outcome: inout Outcome
    ) throws {
        outcome.figures.pages += batch.pages
        outcome.figures.read += batch.notifications.count
        outcome.figures.rejected += batch.rejected.count
        for rejected in batch.rejected {
            log.log(.warning, "notification.rejected", ["run_id": String(runID), "detail": rejected.detail])
        }
        for notification in batch.notifications {
            if notification.deliveryFailed { outcome.figures.deliveryFailed += 1 }
            let type = notification.type
            if type.map({ !SignedNotification.NotificationType.documented.contains($0) }) ?? true {
                let name = type?.rawValue ?? "(none)"
                if outcome.figures.unknownTypes[name] == nil {
                    log.log(.warning, "notification.unknown_type", ["run_id": String(runID), "type": name])
                }
                outcome.figures.unknownTypes[name, default: 0] += 1
            }
        }
        if options.dryRun {
            let users = try store.holders(of: batch.notifications)
            outcome.dryRunNotified.formUnion(users)
            outcome.figures.users = outcome.dryRunNotified.count
            feed?.stored(dryRunNotified: users)
        } else {
            let counts = try store.store(batch.notifications, runID: runID)
            // A record with no UUID or signed date has nothing to be stored under: never acted on, like a
            // record that failed verification.
            outcome.figures.rejected += counts.unusable
            outcome.figures.stored += counts.stored
            outcome.figures.unmatched += counts.unmatched
            outcome.figures.users += counts.usersNamed
            feed?.stored(dryRunNotified: [])
        }
    }

    private static func text(_ date: Date) -> String { Instant.formatSeconds(date) }
}
