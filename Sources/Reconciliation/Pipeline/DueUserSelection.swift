import Postgres

/// Stage 1, select: the users whose receipts are due, in order. The nightly run pages them from
/// PostgreSQL (`DueUserReader`: keyset pages, memory flat whatever the table's size), or, on a night
/// driven by notifications, from the run's queue (`RunQueue`, filled by `NotificationNight`);
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
    func forEachUser(_ emit: (UserWork) -> Bool) throws {
        switch self {
        case .due(let reader, let reconnector):
            while true {
                let page: [UserWork]
                do {
                    page = try reader.nextPage()
                } catch let error as PostgresError where error.isConnectionFailure {
                    reader.use(try reconnector.reconnect("reader", after: error))
                    continue
                }
                if page.isEmpty { return }
                for user in page where !emit(user) { return }
            }
        case .queued(let night, let reconnector):
            while true {
                let page: [UserWork]
                do {
                    page = try night.queue.nextPage()
                } catch let error as PostgresError where error.isConnectionFailure {
                    night.queue.use(try reconnector.reconnect("reader", after: error))
                    continue
                }
                if page.isEmpty { return }
                for user in page where !emit(user) { return }
            }
        case .one(let user):
            if !user.receipts.isEmpty { _ = emit(user) }
        }
    }

    /// The receipts this selection will emit, counted ahead of the walk (for the progress only).
    func countDue() throws -> Int {
        switch self {
        case .due(let reader, _): try reader.countDue()
        case .queued(let night, _): try night.queue.countDue()
        case .one(let user): user.receipts.count
        }
    }

    /// Seconds spent waiting on PostgreSQL.
    var databaseSeconds: Double {
        switch self {
        case .due(let reader, _): reader.secondsWaited
        case .queued(let night, _): night.queue.secondsWaited
        case .one: 0
        }
    }
}
