import Foundation
import Postgres

/// Fills a run's queue (`recon_run_queue`, see `RunQueue` for the reasons and their precedence) in
/// `user_id` ranges, each its own transaction, advancing the `QueueFrontier` as each commits: the
/// paging starts on the first range while the rest is filled, so a night's first users are asked
/// while the queue of a million is still being written.
///
/// Each range applies every reason's rule to its own users, in precedence order, so a user's reason
/// is the one a single fill of the whole queue would give it. The sweep's choice is the one rule that
/// depends on every user (the q verified longest ago): it is decided once, before the first range, as
/// the sort key of the q-th user it takes (`SweepCut`), and each range takes its users up to that key.
///
/// A dropped connection costs the range in hand, which is filled again on a new one (`use`).
///
/// Threading: owns its connection; use it from one thread.
final class RunQueueFill {
    private var connection: PostgresConnection
    let runID: Int64
    private let shardIndex: Int
    private let shardCount: Int
    private let asOf: Date
    private let sweepDays: Int
    private let olderThanCutoff: Date?
    private let dryRunNotified: [String]
    private let frontier: QueueFrontier
    /// Receipts per range: a small first range, so that the paging starts at once, then doubling up to
    /// the largest, so that a big queue takes few transactions.
    static let growingRanges = (first: 256, largest: 16_384)
    private var rangeReceipts: Int
    private var largestRange: Int
    private var plan: (counts: RunQueueCounts, cut: SweepCut?)?
    /// The last user of the last range filled; "" before the first.
    private var filledThrough = ""

    /// - Parameters:
    ///   - asOf: the run's instant: the sweep's "overdue" counts back from it.
    ///   - sweepDays: `--sweep-days` D.
    ///   - olderThanCutoff: the explicit `--older-than`'s cutoff; nil without one.
    ///   - dryRunNotified: users a dry run found named by notifications it did not store.
    init(
        connection: PostgresConnection, runID: Int64, shardIndex: Int, shardCount: Int, asOf: Date, sweepDays: Int,
        olderThanCutoff: Date?, dryRunNotified: Set<String> = [], frontier: QueueFrontier,
        ranges: (first: Int, largest: Int) = growingRanges
    ) {
        self.connection = connection
        self.runID = runID
        self.shardIndex = shardIndex
        self.shardCount = shardCount
        self.asOf = asOf
        self.sweepDays = sweepDays
        self.olderThanCutoff = olderThanCutoff
        self.dryRunNotified = dryRunNotified.sorted()
        self.frontier = frontier
        (rangeReceipts, largestRange) = ranges
    }

    var secondsWaited: Double { connection.secondsWaited }

    /// Fills on `connection` from now on, in place of one that dropped.
    func use(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Plans the fill (once: empties the queue, decides the sweep) and fills the next range.
    /// - Returns: false once the queue is whole.
    func fillNext() throws -> Bool {
        if plan == nil {
            plan = try connection.transaction { try planFill() }
            frontier.planned(plan!.counts)
        }
        guard !frontier.current.isComplete else { return false }
        let through = try connection.transaction { () throws -> String? in
            let through = try rangeEnd()
            try fillRange(through: through)
            return through
        }
        if let through { filledThrough = through }
        rangeReceipts = min(rangeReceipts * 2, largestRange)
        frontier.advanced(through: through)
        return through != nil
    }

    /// The receipts of the queued users, capped by `limit` (`RunQueue.countDue`).
    func countDue(limit: Int?) throws -> Int {
        try RunQueue.countDue(runID: runID, limit: limit, on: connection)
    }

    private func shard(_ column: String) -> String {
        DueUserReader.shardPredicate(column: column, count: shardCount, index: shardIndex)
    }

    private func planFill() throws -> (counts: RunQueueCounts, cut: SweepCut?) {
        try connection.execute("DELETE FROM recon_run_queue WHERE run_id = \(runID)")
        // Ranges are cut in the receipts' order and paged in the queue's: where the two columns' collations
        // differ (a mapped view of the app's own column), a range could fill a user the paging has passed,
        // so the queue is filled in one range.
        let sameOrder: Bool = try connection.query(
            """
            SELECT (SELECT attcollation FROM pg_attribute WHERE attrelid = 'receipts'::regclass AND attname = 'user_id')
                 = (SELECT attcollation FROM pg_attribute WHERE attrelid = 'recon_run_queue'::regclass AND attname = 'user_id')
                   AS same
            """
        ).first!.decode("same")
        if !sameOrder { (rangeReceipts, largestRange) = (Int(Int32.max), Int(Int32.max)) }
        let covered = try connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT count(*) AS users, count(*) FILTER (WHERE u.verified_at < $1) AS overdue
                    FROM recon_user_state u WHERE \(shard("u.user_id")) AND \(RunQueue.holdsReceipt("u.user_id"))
                    """,
                binds: [SweepQuota.overdueBefore(asOf: asOf, days: sweepDays).postgresBind])
        ).first!
        let quota = SweepQuota(
            users: try covered.decode("users"), days: sweepDays, overdue: try covered.decode("overdue"))
        var counts = RunQueueCounts()
        (counts.sweepUsers, counts.overdue, counts.quota) = (quota.users, quota.overdue, quota.quota)
        guard quota.quota > 0 else { return (counts, .none) }
        return (counts, try SweepCut.read(quota: quota.quota, shard: shard, on: connection))
    }

    /// The last user of the next range: `rangeReceipts` receipts on from the last range, or nil when the
    /// range reaches the last user.
    private func rangeEnd() throws -> String? {
        try connection.query(
            """
            SELECT user_id FROM receipts WHERE user_id > \(filledThrough)
            ORDER BY user_id OFFSET \(rangeReceipts - 1) LIMIT 1
            """
        ).first?.decode("user_id")
    }

    /// Queues the users after `filledThrough` up to `through` (nil: to the last), reason by reason in
    /// precedence order; a user already queued keeps its reason.
    private func fillRange(through: String?) throws {
        // $1 the run, $2 and $3 the range (an upper bound of NULL: none), the rule's own values from $4.
        func queue(_ reason: DueReason, _ users: (_ inRange: (String) -> String) -> String, _ values: [PostgresBind])
            throws
        {
            let inRange = { (column: String) in "\(column) > $2 AND ($3::text IS NULL OR \(column) <= $3)" }
            // Identifiers and predicates are this program's; values are bound.
            try connection.execute(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO recon_run_queue (run_id, user_id, reason)
                        SELECT $1, d.user_id, '\(reason.rawValue)' FROM (\(users(inRange))) d
                        ON CONFLICT DO NOTHING
                        """,
                    binds: [runID.postgresBind, filledThrough.postgresBind, through.postgresBind] + values))
        }
        let holdsReceipt = RunQueue.holdsReceipt
        try queue(
            .notified, { RunQueue.notifiedUsers(shard: shard, dryRunNotified: "$4", where: $0) },
            [dryRunNotified.postgresBind])
        try queue(
            .new,
            { inRange in
                """
                SELECT DISTINCT r.user_id FROM receipts r
                WHERE \(inRange("r.user_id")) AND \(shard("r.user_id"))
                  AND NOT EXISTS (SELECT 1 FROM recon_receipt_state s WHERE s.receipt_id = r.id)
                """
            }, [])
        if let plan, plan.counts.quota > 0 {
            try queue(
                .sweep,
                { inRange in
                    """
                    SELECT o.user_id FROM \(plan.cut == nil ? "recon_user_state o" : SweepCut.keyedUsers)
                    WHERE \(inRange("o.user_id")) AND \(shard("o.user_id")) AND \(holdsReceipt("o.user_id"))
                      AND \(plan.cut == nil ? "true" : SweepCut.includes(first: 4))
                    """
                }, plan.cut?.binds ?? [])
        }
        if let olderThanCutoff {
            try queue(
                .olderThan,
                { inRange in
                    """
                    SELECT DISTINCT r.user_id FROM receipts r LEFT JOIN recon_receipt_state s ON s.receipt_id = r.id
                    WHERE \(inRange("r.user_id")) AND \(shard("r.user_id"))
                      AND (s.last_verified_at IS NULL OR s.last_verified_at < $4)
                    """
                }, [olderThanCutoff.postgresBind])
        }
    }
}
