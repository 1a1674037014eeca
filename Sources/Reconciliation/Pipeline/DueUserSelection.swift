import Postgres

/// Stage 1, select: the users whose receipts are due, in order. The nightly run pages them from
/// PostgreSQL (`DueUserReader`: keyset pages, memory flat whatever the table's size), or, on a night
/// driven by notifications, from the run's queue (`RunQueue`), which the notified users join while
/// they are read (`NotificationNight`);
/// `verify-user` selects its one user.
///
/// A dropped connection costs the reader a reconnect and the page it was reading, which it reads
/// again from the same place.
///
/// Threading: `forEachUser` runs on the calling thread (the run's reader) and may block on PostgreSQL
/// and on `emit`, which blocks while the verification queue is full.
enum DueUserSelection {
    case due(DueUserReader, DatabaseReconnector)
    case queued(NotificationNight, DatabaseReconnector)
    case one(UserWork)

    /// Emits each user until there are no more or `emit` returns false (the run is stopping).
    /// `queueComplete` runs once a night's queue holds every user the notifications named.
    func forEachUser(queueComplete: () throws -> Void = {}, _ emit: (UserWork) -> Bool) throws {
        if case .queued(let night, let reconnector) = self {
            return try night.forEachUser(reconnector: reconnector, complete: queueComplete, emit)
        }
        guard let (pages, reconnector) = paged else {
            if let user = oneUser, !user.receipts.isEmpty { _ = emit(user) }
            return
        }
        while true {
            let page: [UserWork]
            do {
                page = try pages.nextPage()
            } catch let error as PostgresError where error.isConnectionFailure {
                pages.use(try reconnector.reconnect("reader", after: error))
                continue
            }
            if page.isEmpty { return }
            for user in page where !emit(user) { return }
        }
    }

    /// The receipts this selection will emit, counted ahead of the walk (for the progress only).
    func countDue() throws -> Int {
        guard let (pages, _) = paged else { return oneUser?.receipts.count ?? 0 }
        return try pages.countDue()
    }

    /// Seconds spent waiting on PostgreSQL.
    var databaseSeconds: Double { paged?.pages.secondsWaited ?? 0 }

    /// The pages the selection reads, and how it reconnects; nil for `verify-user`'s one user.
    private var paged: (pages: any UserPages, reconnector: DatabaseReconnector)? {
        switch self {
        case .due(let reader, let reconnector): (reader, reconnector)
        case .queued(let night, let reconnector): (night.queue, reconnector)
        case .one: nil
        }
    }

    private var oneUser: UserWork? {
        if case .one(let user) = self { return user }
        return nil
    }
}
