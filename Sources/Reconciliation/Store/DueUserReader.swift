import Foundation
import Postgres

/// One stored receipt row.
public struct StoredReceipt: Sendable, Hashable {
    public let id: Int64
    public let data: String
}

/// One user's unit of work: every receipt of the user (the user's truth comes from all of them).
public struct UserWork: Sendable {
    public let userID: String
    public let receipts: [StoredReceipt]
    public let isSandboxTester: Bool
}

/// Walks the users who have due receipts, in `user_id` order, one keyset page at a time, so memory
/// does not grow with the number of receipts (CONTRACT §3 `--older-than`, `--limit`, `--shard`).
///
/// A receipt is due when it was never verified, or last verified before `cutoff`. A user with a due
/// receipt is verified whole: all their receipts, because the truth comes from all of them together.
///
/// Threading: owns its connection; use it from one thread.
public final class DueUserReader {
    private let connection: PostgresConnection
    private let cutoff: Date
    private let shardIndex: Int
    private let shardCount: Int
    private let pageSize: Int
    private var receiptBudget: Int?
    private var cursor = ""
    private var exhausted = false

    public init(connection: PostgresConnection, cutoff: Date, shardIndex: Int, shardCount: Int, limit: Int?, pageSize: Int = 200) {
        self.connection = connection
        self.cutoff = cutoff
        self.shardIndex = shardIndex
        self.shardCount = shardCount
        self.pageSize = pageSize
        receiptBudget = limit
    }

    /// Seconds this reader waited on PostgreSQL.
    public var secondsWaited: Double { connection.secondsWaited }

    /// The shard of a user: the same SQL expression everywhere, so shards are disjoint and complete.
    static func shardPredicate(column: String, count: Int, index: Int) -> String {
        // Masking the sign bit keeps the modulo non-negative (abs() of the minimum bigint overflows).
        "(hashtextextended(\(column), 0) & 9223372036854775807) % \(count) = \(index)"
    }

    /// The next page of users, or an empty array when there are no more (or `--limit` is reached).
    ///
    /// The receipt's state is looked up by a scalar subquery, which PostgreSQL evaluates per row
    /// through the primary key and never turns into a join: the page walks `receipts` in index
    /// order from the cursor and stops after `pageSize` users. As a join, the planner hashed every
    /// remaining receipt against every state row for each page, a cost that grew with the run
    /// (76 ms a page at 10,000 receipts, quadratic over a run).
    public func nextPage() throws -> [UserWork] {
        guard !exhausted else { return [] }
        let rows = try connection.query("""
            WITH due_users AS (
                SELECT DISTINCT r.user_id
                FROM receipts r
                WHERE r.user_id > \(cursor)
                  AND coalesce((SELECT s.last_verified_at FROM recon_receipt_state s WHERE s.receipt_id = r.id),
                               '-infinity') < \(cutoff)
                  AND \(unescaped: Self.shardPredicate(column: "r.user_id", count: shardCount, index: shardIndex))
                ORDER BY r.user_id
                LIMIT \(pageSize)
            )
            SELECT r.user_id, r.id, r.receipt_data, (t.user_id IS NOT NULL) AS tester
            FROM receipts r
            JOIN due_users d ON d.user_id = r.user_id
            LEFT JOIN sandbox_testers t ON t.user_id = r.user_id
            ORDER BY r.user_id, r.id
            """)
        guard !rows.isEmpty else {
            exhausted = true
            return []
        }
        var users: [UserWork] = []
        var current: (id: String, receipts: [StoredReceipt], tester: Bool)?
        func close() -> Bool {
            guard let user = current else { return true }
            if let budget = receiptBudget {
                // --limit: whole users only, but never zero users.
                if user.receipts.count > budget, !users.isEmpty || budget == 0 { return false }
                receiptBudget = max(0, budget - user.receipts.count)
            }
            users.append(UserWork(userID: user.id, receipts: user.receipts, isSandboxTester: user.tester))
            return true
        }
        for row in rows {
            let userID: String = try row.decode("user_id")
            let receipt = StoredReceipt(id: try row.decode("id"), data: try row.decode("receipt_data"))
            if current?.id == userID {
                current?.receipts.append(receipt)
            } else {
                guard close() else { break }
                current = (userID, [receipt], try row.decode("tester"))
            }
        }
        if current != nil, !close() { exhausted = true }
        if receiptBudget == 0 { exhausted = true }
        cursor = users.last?.userID ?? cursor
        if users.isEmpty { exhausted = true }
        return users
    }
}
