import Postgres

/// A selection read from PostgreSQL a page of whole users at a time: the nightly reader
/// (`DueUserReader`) and a night's queue (`RunQueue`). A page that fails on a dropped connection is
/// read again from the same place once `use` gives it a new one.
protocol UserPages: AnyObject {
    /// The next users in `user_id` order; empty when there are no more.
    func nextPage() throws -> [UserWork]
    /// Reads on `connection` from now on, in place of one that dropped.
    func use(_ connection: PostgresConnection)
    /// The receipts the selection will emit, counted ahead of the walk.
    func countDue() throws -> Int
    /// Seconds spent waiting on PostgreSQL, over every connection used.
    var secondsWaited: Double { get }
}

extension DueUserReader: UserPages {}
extension RunQueue: UserPages {}
