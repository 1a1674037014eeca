import Postgres

/// A night driven by Apple's notification history (CONTRACT §9): stage 0 reads the history
/// (`NotificationIntake`) on a thread of its own while the run's queue (`RunQueue`), filled at once
/// with the users never verified and the sweep's share of the longest-unverified, is paged and its
/// users asked; the users the notifications name join the queue as their pieces are stored (`feed`).
struct NotificationNight {
    let intake: NotificationIntake
    let queue: RunQueue
    let selection: RunOptions.NotificationSelection
    let feed = NotificationFeed()

    /// Emits the queued users, each once, until the queue is done (the read ended and every user it
    /// queued was emitted, or `--limit` was reached) or `emit` returns false (the run is stopping).
    /// After each stored piece, the users it queued behind the paging come first (`takeNotified`); the
    /// others come in their `user_id` turn. `complete` runs once the read ended and its last users are
    /// queued. Waits for the next piece when the queue has nothing more for now.
    ///
    /// Threading: the run's reader.
    func forEachUser(
        reconnector: DatabaseReconnector, complete: () throws -> Void, _ emit: (UserWork) -> Bool
    ) throws {
        while true {
            let news = feed.take()
            if news.stored {
                let joined = try retrying(reconnector) { try queue.takeNotified(dryRunNotified: news.dryRunNotified) }
                for user in joined where !emit(user) { return }
                if news.finished { try complete() }
            }
            let page = try retrying(reconnector) { try queue.nextPage() }
            for user in page where !emit(user) { return }
            guard page.isEmpty else { continue }
            if news.finished || queue.isExhausted { return }
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
