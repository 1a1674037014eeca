import Postgres

/// A night driven by Apple's notification history (CONTRACT §9): stage 0 reads the history
/// (`NotificationIntake`) on a thread of its own while the run's queue (`RunQueue`), filled in ranges
/// on another (`RunQueueFill`) with the users never verified and the sweep's share of the
/// longest-unverified, is paged and its users asked; the users the notifications name join the queue
/// as their pieces are stored (`feed`).
struct NotificationNight {
    let intake: NotificationIntake
    let queue: RunQueue
    let selection: RunOptions.NotificationSelection
    let feed = NotificationFeed()

    init(intake: NotificationIntake, queue: RunQueue, selection: RunOptions.NotificationSelection) {
        (self.intake, self.queue, self.selection) = (intake, queue, selection)
        queue.frontier = QueueFrontier(onChange: { [feed] in feed.grew() })
    }

    /// Emits the queued users, each once, until the queue is done (the read and the fill ended and every
    /// user queued was emitted, or `--limit` was reached, or the fill ended short) or `emit` returns false
    /// (the run is stopping). After each stored piece, the users it queued behind the paging come first
    /// (`takeNotified`, also after each range the fill commits); the others come in their `user_id` turn,
    /// as far as the last join took the fill.
    /// `complete` runs once the read and the fill ended and the read's last users are queued. Waits for
    /// the next piece or range when the queue has nothing more for now.
    ///
    /// Threading: the run's reader.
    func forEachUser(
        reconnector: DatabaseReconnector, complete: () throws -> Void, _ emit: (UserWork) -> Bool
    ) throws {
        while true {
            // News first, then the frontier: whatever changes after the news were taken wakes the wait.
            let news = feed.take()
            if news.stored || queue.frontierMoved {
                let joined = try retrying(reconnector) { try queue.takeNotified(dryRunNotified: news.dryRunNotified) }
                for user in joined where !emit(user) { return }
            }
            // What the last join took: the page reads no further.
            let filled = queue.seen
            if news.finished, filled.isComplete { try complete() }
            let page = try retrying(reconnector) { try queue.nextPage() }
            for user in page where !emit(user) { return }
            guard page.isEmpty else { continue }
            if queue.isExhausted || filled.endedShort || (news.finished && filled.isComplete) { return }
            feed.waitForNews()
        }
    }

    /// Once the read ended: queues its last users without asking them (the run stopped, or `--limit`
    /// was reached), so that the queue's counts say who is left for the next night.
    func queueTheRest(reconnector: DatabaseReconnector) throws {
        let news = feed.take()
        _ = try retrying(reconnector) { try queue.takeNotified(dryRunNotified: news.dryRunNotified) }
    }

    /// `body` again on a new connection after a dropped one; the queue leaves itself as it was.
    func retrying<T>(_ reconnector: DatabaseReconnector, _ body: () throws -> T) throws -> T {
        while true {
            do {
                return try body()
            } catch let error as PostgresError where error.isConnectionFailure {
                queue.use(try reconnector.reconnect("reader", after: error))
            }
        }
    }
}
