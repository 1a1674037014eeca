import Foundation
import Postgres

/// What `RunQueue.fill` put in the run's queue.
public struct RunQueueCounts: Sendable, Equatable {
    /// Users queued, per reason (each user once, under the first reason that took them).
    public var users: [DueReason: Int] = [:]
    /// The sweep's quota q (`SweepQuota`); the sweep queues fewer when some of them were queued already.
    public var quota = 0
    /// Users whose last verification is older than D − 1 days.
    public var overdue = 0
    /// U: the users the sweep covers in this shard.
    public var sweepUsers = 0

    public init() {}

    public subscript(reason: DueReason) -> Int { users[reason, default: 0] }
    public var total: Int { users.values.reduce(0, +) }
}

/// The run's selection under notifications (`--backend server-api` without `--no-notifications`,
/// CONTRACT §9): the users it takes and why, written into `recon_run_queue` with INSERT … SELECT
/// (nothing held in memory; `RunQueueFill`, range by range while the first are paged), then paged like
/// `DueUserReader`.
///
/// Reasons, each user once, in this precedence: `notified` (a pending notification names the user),
/// `new` (a receipt never verified), `sweep` (q of the users verified longest ago, `SweepQuota`: the
/// oldest days first and, within the day the quota cuts, the users whose `app_store` entitlement ends
/// soonest, so a purchase about to lapse is checked before it does), `older_than` (only with an
/// explicit cutoff: a receipt last verified before it).
///
/// The fill does not wait for the night's notification history: the users it names join the queue
/// as their pieces are stored (`takeNotified`), with the same precedence over the reasons of users
/// not asked yet. A user the run already asked under another reason keeps it: the queue is what the
/// run asked and why, each user once.
///
/// Pages come in `user_id` order whatever the reason (keyset on the queue's primary key), as
/// `DueUserReader`'s do: the circuit breakers judge the run from its first users, and a night's
/// notified users are mostly the ones whose purchases changed (refunds, expiries). Taken first, they
/// would trip the revoke breaker on a night that is right; mixed in, they weigh what they weigh. A
/// night its budget ends early leaves notified users pending, and the next night takes them.
///
/// Threading: owns its connection; use it from one thread.
public final class RunQueue {
    private var connection: PostgresConnection
    private var waitedBefore = 0.0
    let runID: Int64
    let shardIndex: Int
    let shardCount: Int
    private let pageSize: Int
    private let limit: Int?
    private var receiptBudget: Int?
    /// `--limit` was reached: no page more, though users may still join the queue.
    private var exhausted = false
    /// The last user paged.
    private var cursor = ""
    /// Users queued behind the cursor (`takeNotified`) and not read yet.
    private var owed: [String] = []
    /// How far the queue is filled (a queue filled while it is paged).
    var frontier = QueueFrontier.complete() {
        didSet { seen = frontier.current }
    }
    /// The frontier as the last join took it (`takeNotified`): the paging reads no further, so that
    /// each range is joined by the notified users before it is paged.
    private(set) var seen = QueueFrontier.complete().current

    /// The fill has moved since the last join took the frontier.
    var frontierMoved: Bool { frontier.current != seen }

    public init(
        connection: PostgresConnection, runID: Int64, shardIndex: Int, shardCount: Int, limit: Int?,
        pageSize: Int = 200
    ) {
        self.connection = connection
        self.runID = runID
        self.shardIndex = shardIndex
        self.shardCount = shardCount
        self.limit = limit
        self.pageSize = pageSize
        rewind()
    }

    /// Seconds this queue waited on PostgreSQL.
    public var secondsWaited: Double { waitedBefore + connection.secondsWaited }

    /// `--limit` was reached: no user more will be paged.
    public var isExhausted: Bool { exhausted }

    /// The connection the queue reads on (for a question of the same moment, the budget's estimate).
    var currentConnection: PostgresConnection { connection }

    /// Reads on `connection` from now on, in place of one that dropped.
    public func use(_ connection: PostgresConnection) {
        waitedBefore += self.connection.secondsWaited
        self.connection = connection
    }

    private func rewind() {
        receiptBudget = limit
        exhausted = false
        cursor = ""
        owed = []
    }

    private func shard(_ column: String) -> String {
        DueUserReader.shardPredicate(column: column, count: shardCount, index: shardIndex)
    }

    /// The users pending notifications name, in the shard, holding a receipt and passing `filter`
    /// (a dry run's are bound at the placeholder `dryRunNotified`).
    static func notifiedUsers(
        shard: (String) -> String, dryRunNotified: String, where filter: (String) -> String = { _ in "true" }
    ) -> String {
        """
        SELECT u.user_id FROM recon_notification_users u
        WHERE u.handled_run_id IS NULL AND \(filter("u.user_id")) AND \(shard("u.user_id")) AND \(holdsReceipt("u.user_id"))
        UNION
        SELECT x.user_id FROM unnest(\(dryRunNotified)::text[]) AS x(user_id)
        WHERE \(filter("x.user_id")) AND \(shard("x.user_id")) AND \(holdsReceipt("x.user_id"))
        """
    }

    static func holdsReceipt(_ column: String) -> String {
        "EXISTS (SELECT 1 FROM receipts r WHERE r.user_id = \(column))"
    }

    /// Fills the run's queue afresh, whole, and rewinds the paging (a queue filled while it is paged:
    /// `RunQueueFill` on a connection of its own, with this queue's `frontier`).
    /// - Parameters:
    ///   - asOf: the run's instant: the sweep's "overdue" counts back from it.
    ///   - sweepDays: `--sweep-days` D.
    ///   - olderThanCutoff: the explicit `--older-than`'s cutoff; nil without one.
    ///   - dryRunNotified: users a dry run found named by notifications it did not store.
    ///   - rangeReceipts: receipts per range, every range (nil: `RunQueueFill`'s growing ranges).
    public func fill(
        asOf: Date, sweepDays: Int, olderThanCutoff: Date?, dryRunNotified: Set<String> = [], rangeReceipts: Int? = nil
    ) throws -> RunQueueCounts {
        let frontier = QueueFrontier()
        let fill = RunQueueFill(
            connection: connection, runID: runID, shardIndex: shardIndex, shardCount: shardCount, asOf: asOf,
            sweepDays: sweepDays, olderThanCutoff: olderThanCutoff, dryRunNotified: dryRunNotified,
            frontier: frontier, ranges: rangeReceipts.map { (first: $0, largest: $0) } ?? RunQueueFill.growingRanges)
        while try fill.fillNext() {}
        rewind()
        var counts = frontier.current.counts ?? RunQueueCounts()
        counts.users = try queuedByReason()
        return counts
    }

    /// Queues the users pending notifications name now (the pieces stored since the fill), and returns
    /// those the paging has passed, whole, to be asked at once; the others it pages in their turn, and
    /// those already queued and not yet paged are now queued as `notified`. A user already paged
    /// keeps the reason it was asked under. A failure leaves the queue as it was (one transaction).
    /// - Parameter dryRunNotified: users a dry run found named by notifications it did not store.
    public func takeNotified(dryRunNotified: Set<String> = []) throws -> [UserWork] {
        // Only as far as the fill has committed: a user ahead is queued by its range, which sees its
        // notification or is followed by a join that does, and no range is ever waited for.
        seen = frontier.current
        let through = seen.isComplete ? nil : seen.through
        let binds = [
            runID.postgresBind, dryRunNotified.sorted().postgresBind, cursor.postgresBind, through.postgresBind,
        ]
        let filled = { (column: String) in "($4::text IS NULL OR \(column) <= $4)" }
        var passed: [String] = []
        if through?.isEmpty != true {
            try connection.transaction {
                try connection.execute(
                    PostgresQuery(
                        unsafeSQL: """
                            UPDATE recon_run_queue q SET reason = '\(DueReason.notified.rawValue)'
                            WHERE q.run_id = $1 AND q.user_id > $3 AND \(filled("q.user_id"))
                              AND q.reason <> '\(DueReason.notified.rawValue)'
                              AND q.user_id IN (\(Self.notifiedUsers(shard: shard, dryRunNotified: "$2", where: filled)))
                            """, binds: binds))
                // Behind the cursor by the queue's own collation, as the paging compares: Swift's order
                // of strings is not the database's.
                passed = try connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO recon_run_queue (run_id, user_id, reason)
                            SELECT $1, d.user_id, '\(DueReason.notified.rawValue)'
                            FROM (\(Self.notifiedUsers(shard: shard, dryRunNotified: "$2", where: filled))) d
                            ON CONFLICT DO NOTHING
                            RETURNING user_id, user_id <= $3 AS passed
                            """, binds: binds)
                ).filter { try $0.decode("passed", as: Bool.self) }.map { try $0.decode("user_id", as: String.self) }
            }
        }
        // Queued now, so never paged: owed until read whole, even if this read fails and is retried.
        owed += passed
        guard !owed.isEmpty, !exhausted, receiptBudget != 0 else { return [] }
        let position = (receiptBudget, exhausted)
        do {
            let (users, spent) = try UserWork.page(of: owed.sorted(), receiptBudget: &receiptBudget, on: connection)
            if spent { exhausted = true }
            owed = []
            return users.map { user in
                var user = user
                user.reason = .notified
                return user
            }
        } catch {
            (receiptBudget, exhausted) = position
            throw error
        }
    }

    /// The users queued, per reason, as they stand now.
    public func queuedByReason() throws -> [DueReason: Int] {
        var users: [DueReason: Int] = [:]
        for row in try connection.query(
            "SELECT reason, count(*) AS users FROM recon_run_queue WHERE run_id = \(runID) GROUP BY reason")
        {
            let reason = DueReason(rawValue: try row.decode("reason", as: String.self)) ?? .olderThan
            users[reason, default: 0] += Int(try row.decode("users", as: Int64.self))
        }
        return users
    }

    /// The receipts of the queued users, capped by `--limit`: what the paging will read if nothing
    /// changes meanwhile (for the progress's "of how many").
    public func countDue() throws -> Int {
        try Self.countDue(runID: runID, limit: limit, on: connection)
    }

    static func countDue(runID: Int64, limit: Int?, on connection: PostgresConnection) throws -> Int {
        let count: Int64 = try connection.query(
            """
            SELECT count(*) AS receipts FROM receipts r
            WHERE r.user_id IN (SELECT q.user_id FROM recon_run_queue q WHERE q.run_id = \(runID))
            """
        ).first!.decode("receipts")
        return limit.map { min($0, Int(count)) } ?? Int(count)
    }

    /// The next page of users, each whole and with its reason, or an empty array when there are no
    /// more for now (users may join later, `takeNotified`) or `--limit` is reached. A page that fails
    /// leaves the queue where it was.
    public func nextPage() throws -> [UserWork] {
        let position = (receiptBudget, exhausted, cursor)
        do {
            while !exhausted, receiptBudget != 0 {
                let next = try nextUsers(pageSize)
                guard !next.isEmpty else { break }
                let reasons = Dictionary(uniqueKeysWithValues: next.map { ($0.userID, $0.reason) })
                let (users, spent) = try UserWork.page(
                    of: next.map(\.userID), receiptBudget: &receiptBudget, on: connection)
                if spent { exhausted = true }
                // Users whose receipts were all deleted since the fill are skipped; the page goes on.
                if !users.isEmpty {
                    return users.map { user in
                        var user = user
                        user.reason = reasons[user.userID] ?? .olderThan
                        return user
                    }
                }
            }
            return []
        } catch {
            (receiptBudget, exhausted, cursor) = position
            throw error
        }
    }

    /// Up to `count` queued users after the cursor and up to the frontier, in `user_id` order, which it
    /// advances past them.
    ///
    /// Fetched through a cursor rather than with `LIMIT`: a cursor is planned for its first rows, so the
    /// page walks the primary key from the cursor whatever the statistics say. The queue is emptied at
    /// the end of every run and filled in bulk at the start of the next, before autovacuum analyzes it;
    /// planned from the empty table's statistics, `LIMIT` read and sorted every queued user after the
    /// cursor for each page, which grows with the square of the night.
    private func nextUsers(_ count: Int) throws -> [(userID: String, reason: DueReason)] {
        if !seen.isComplete, seen.through.isEmpty { return [] }
        let through = seen.isComplete ? nil : seen.through
        let rows = try connection.transaction {
            try connection.execute(Self.pageCursor(runID: runID, after: cursor, through: through))
            return try connection.query("FETCH \(unescaped: String(count)) FROM \(unescaped: Self.pageCursorName)")
        }
        let users = try rows.map { row in
            (
                userID: try row.decode("user_id", as: String.self),
                reason: DueReason(rawValue: try row.decode("reason", as: String.self)) ?? .olderThan
            )
        }
        if let last = users.last { cursor = last.userID }
        return users
    }

    static let pageCursorName = "recon_queue_page"

    /// The cursor a page is fetched from: the queued users of `runID` after `after`, up to `through`
    /// (nil: to the end), in `user_id` order.
    static func pageCursor(runID: Int64, after: String, through: String?) -> PostgresQuery {
        """
        DECLARE \(unescaped: pageCursorName) NO SCROLL CURSOR FOR
        SELECT user_id, reason FROM recon_run_queue
        WHERE run_id = \(runID) AND user_id > \(after) AND (\(through)::text IS NULL OR user_id <= \(through))
        ORDER BY user_id
        """
    }
}
