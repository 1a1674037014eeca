import Foundation
import Postgres

/// Walks the users who have due receipts, in `user_id` order, one keyset page at a time, so memory
/// does not grow with the number of receipts (CONTRACT §3 `--older-than`, `--limit`, `--shard`).
///
/// A receipt is due when it was never verified, or last verified before `cutoff`. A user with a due
/// receipt is verified whole: all their receipts, because the truth comes from all of them together.
///
/// Two steps per page, each with only one reasonable plan whatever the table statistics say:
/// 1. the index of `receipts (user_id, id)` is walked from the cursor with no filter, each entry's
///    state looked up by primary key, and due-ness and the shard decided here;
/// 2. the receipts of the due users are read by `user_id = ANY(…)`.
/// As one query with the filters in SQL, the planner (estimating the shard and due filters at a
/// fraction of a percent) hashed and sorted every remaining receipt for each page: quadratic over
/// a run (docs/benchmarks.md, "Measurements behind the code").
///
/// Threading: owns its connection; use it from one thread.
public final class DueUserReader {
    private var connection: PostgresConnection
    private var waitedBefore = 0.0
    private let cutoff: Date
    private let shardIndex: Int
    private let shardCount: Int
    private let pageSize: Int
    private var receiptBudget: Int?
    private var cursor = ""
    private var exhausted = false
    /// Receipt rows read per due user so far: the next page asks for about as many rows as fill it.
    private var rowsPerDueUser = 1.0

    /// - Parameter pageSize: users per page; the index is walked in steps of ten times that.
    public init(
        connection: PostgresConnection, cutoff: Date, shardIndex: Int, shardCount: Int, limit: Int?, pageSize: Int = 200
    ) {
        self.connection = connection
        self.cutoff = cutoff
        self.shardIndex = shardIndex
        self.shardCount = shardCount
        self.pageSize = pageSize
        receiptBudget = limit
    }

    /// Seconds this reader waited on PostgreSQL.
    public var secondsWaited: Double { waitedBefore + connection.secondsWaited }

    /// Reads on `connection` from now on, in place of one that dropped.
    public func use(_ connection: PostgresConnection) {
        waitedBefore += self.connection.secondsWaited
        self.connection = connection
    }

    /// The shard of a user: the same SQL expression everywhere, so shards are disjoint and complete.
    /// One shard is every user, and says so with `true`: PostgreSQL cannot know that the expression
    /// always holds and estimates it, like any equality it has no statistics for, to keep 0.5 % of the
    /// rows, so it plans a probe per user where one pass over each table does (a nested loop for a
    /// hash join, a sort of every user where an index walk stops at the sweep's quota). The figures are
    /// in docs/benchmarks.md, "Measurements behind the code".
    static func shardPredicate(column: String, count: Int, index: Int) -> String {
        count == 1 ? "true" : "\(shardExpression(column: column, count: count)) = \(index)"
    }

    /// The shard of the user `column` (0 for one shard: no hash per row read).
    static func shardExpression(column: String, count: Int) -> String {
        // Masking the sign bit keeps the modulo non-negative (abs() of the minimum bigint overflows).
        count == 1 ? "0" : "(hashtextextended(\(column), 0) & 9223372036854775807) % \(count)"
    }

    /// The receipts of this shard's users that have a due receipt, capped by `--limit`: what the walk
    /// will read if nothing changes meanwhile. One aggregate over the tables, for the progress's "of how
    /// many"; the walk itself never depends on it.
    public func countDue() throws -> Int {
        let shard = Self.shardPredicate(column: "d.user_id", count: shardCount, index: shardIndex)
        let count: Int64 = try connection.query(
            """
            SELECT count(*) AS receipts FROM receipts r
            WHERE r.user_id IN (
                SELECT d.user_id FROM receipts d LEFT JOIN recon_receipt_state s ON s.receipt_id = d.id
                WHERE (s.last_verified_at IS NULL OR s.last_verified_at < \(cutoff)) AND \(unescaped: shard))
            """
        ).first!.decode("receipts")
        return receiptBudget.map { min($0, Int(count)) } ?? Int(count)
    }

    /// The next page of users, or an empty array when there are no more (or `--limit` is reached).
    /// A page that fails leaves the reader where it was, so the same page can be read again.
    public func nextPage() throws -> [UserWork] {
        let position = (cursor, receiptBudget, exhausted)
        do {
            return try readPage()
        } catch {
            (cursor, receiptBudget, exhausted) = position
            throw error
        }
    }

    private func readPage() throws -> [UserWork] {
        guard !exhausted, receiptBudget != 0 else { return [] }
        let due = try nextDueUsers()
        guard !due.isEmpty else {
            exhausted = true
            return []
        }
        let (users, spent) = try UserWork.page(of: due, receiptBudget: &receiptBudget, on: connection)
        if spent { exhausted = true }
        return users
    }

    /// Up to `pageSize` users of this shard with a due receipt, after the cursor, which it advances
    /// past every user it looked at. Empty when the index has nothing left.
    private func nextDueUsers() throws -> [String] {
        var due: [String] = []
        // Every row read is decoded: ask for what filled the pages so far (a full night: about one row
        // per user), with room to spare, up to ten rows per user where few users are due.
        var step = min(pageSize * 10, max(pageSize + pageSize / 4, Int(Double(pageSize) * rowsPerDueUser * 1.25)))
        var read = 0
        defer { rowsPerDueUser = due.isEmpty ? 10 : max(1, Double(read) / Double(due.count)) }
        while due.count < pageSize {
            let rows = try connection.query(
                """
                SELECT r.user_id, \(unescaped: Self.shardExpression(column: "r.user_id", count: shardCount)) AS shard,
                       (SELECT s.last_verified_at FROM recon_receipt_state s WHERE s.receipt_id = r.id) AS verified_at
                FROM receipts r
                WHERE r.user_id > \(cursor)
                ORDER BY r.user_id, r.id
                LIMIT \(step)
                """)
            guard !rows.isEmpty else { return due }
            read += rows.count
            var scanned: [(user: String, isDue: Bool, inShard: Bool)] = []
            for row in rows {
                let user: String = try row.decode("user_id")
                let verifiedAt: Date? = try row.decode("verified_at")
                let isDue = verifiedAt.map { $0 < cutoff } ?? true
                if let last = scanned.last, last.user == user {
                    scanned[scanned.count - 1].isDue = last.isDue || isDue
                } else {
                    scanned.append((user, isDue, try row.decode("shard", as: Int64.self) == Int64(shardIndex)))
                }
            }
            // A full step may have cut the last user's receipts short: look at it again next time,
            // unless it is the only user seen, whose receipts then need a longer step.
            if rows.count == step {
                if scanned.count == 1 {
                    step *= 4
                    continue
                }
                scanned.removeLast()
            }
            for user in scanned {
                cursor = user.user
                guard user.isDue, user.inShard else { continue }
                due.append(user.user)
                if due.count == pageSize { return due }
            }
            if rows.count < step { return due }
        }
        return due
    }
}
