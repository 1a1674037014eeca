import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// The run's selection under notifications (CONTRACT §9): notified, new, the sweep's quota and an
/// explicit `--older-than`, each user once under the first reason, paged notified first, then new, then
/// the rest, ends-soonest first; `--limit` as `DueUserReader` counts it; shards disjoint.
@Suite struct RunQueueTests {
    static let t0 = NotificationStoreTests.t0
    static func days(_ n: Double) -> Date { t0.addingTimeInterval(n * 86_400) }

    /// A receipt of `user`, last verified at `verified` (nil: never).
    @discardableResult
    static func receipt(_ connection: PostgresConnection, _ user: String, verified: Date?) throws -> Int64 {
        let id: Int64 = try connection.query(
            "INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \("data-\(user)")) RETURNING id"
        ).first!.decode("id")
        if let verified {
            try connection.execute(
                """
                INSERT INTO recon_receipt_state (receipt_id, last_verified_at, last_outcome)
                VALUES (\(id), \(verified), 'valid')
                """)
        }
        return id
    }

    static func verifiedWhole(_ connection: PostgresConnection, _ user: String, at instant: Date) throws {
        try connection.execute(
            "INSERT INTO recon_user_state (user_id, verified_at) VALUES (\(user), \(instant))")
    }

    static func entitlement(_ connection: PostgresConnection, _ user: String, endsAt: Date, active: Bool = true)
        throws
    {
        try connection.execute(
            """
            INSERT INTO entitlements (user_id, entitlement, active, expires_at) VALUES (\(user), 'pro', \(active), \(endsAt))
            """)
    }

    /// A pending notification names `user`.
    static func notify(_ connection: PostgresConnection, _ user: String, runID: Int64) throws {
        try connection.execute(
            """
            INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id)
            VALUES (\("\(user)-1"), \(user), 'com.example.monthly', \(user))
            """)
        _ = try NotificationStore(connection: connection).store(
            [NotificationStoreTests.notification("n-\(user)", original: user)], runID: runID)
    }

    static func readAll(_ queue: RunQueue) throws -> [UserWork] {
        var users: [UserWork] = []
        while case let page = try queue.nextPage(), !page.isEmpty { users += page }
        return users
    }

    /// Two notified users, two new, ten the sweep may take, one already handled, one without receipts.
    static func world(_ connection: PostgresConnection) throws -> Int64 {
        let runID = try NotificationStoreTests.run(connection)
        try receipt(connection, "n-late", verified: days(-1))
        try verifiedWhole(connection, "n-late", at: days(-1))
        try entitlement(connection, "n-late", endsAt: days(30))
        try notify(connection, "n-late", runID: runID)
        try receipt(connection, "n-soon", verified: days(-1))
        try receipt(connection, "n-soon", verified: nil)  // new too, but notified comes first
        try entitlement(connection, "n-soon", endsAt: days(1))
        try notify(connection, "n-soon", runID: runID)
        try receipt(connection, "n-handled", verified: days(-0.1))
        try verifiedWhole(connection, "n-handled", at: days(-0.1))
        try notify(connection, "n-handled", runID: runID)
        try connection.execute(
            "UPDATE recon_notification_users SET handled_run_id = \(runID) WHERE user_id = 'n-handled'")
        try receipt(connection, "w-1", verified: nil)
        try receipt(connection, "w-2", verified: nil)
        try entitlement(connection, "w-2", endsAt: days(2))
        for i in 0..<10 {
            let user = "s-\(i)"
            try receipt(connection, user, verified: days(Double(i) - 10))
            try verifiedWhole(connection, user, at: days(Double(i) - 10))
        }
        try entitlement(connection, "s-3", endsAt: days(1.0 / 24))
        try entitlement(connection, "s-1", endsAt: days(5))
        try entitlement(connection, "s-7", endsAt: days(2.0 / 24))
        // An inactive entitlement ends nothing; a user without receipts is never queued.
        try entitlement(connection, "s-0", endsAt: days(0.5), active: false)
        try verifiedWhole(connection, "gone", at: days(-20))
        return runID
    }

    /// Receipts per range of the fill: one, a few, and the fill's own growing ranges (one range here).
    static let ranges: [Int?] = [1, 4, nil]

    @Test(arguments: ranges)
    func usersComeInUserOrderWhateverTheirReason(rangeReceipts: Int?) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try Self.world(connection)
            let queue = RunQueue(
                connection: try database.connect(), runID: runID, shardIndex: 0, shardCount: 1, limit: nil, pageSize: 3)
            let counts = try queue.fill(
                asOf: Self.t0, sweepDays: 5, olderThanCutoff: nil, rangeReceipts: rangeReceipts)
            // U = 12 (n-late, n-handled, s-0…s-9); s-0…s-5 were last verified more than 4 days ago.
            #expect(counts.sweepUsers == 12 && counts.overdue == 6 && counts.quota == 6)
            #expect(counts[.notified] == 2 && counts[.new] == 2 && counts[.sweep] == 6 && counts[.olderThan] == 0)
            let users = try Self.readAll(queue)
            // The breakers judge a run by its first users: notified users (mostly changed purchases) are not
            // all taken first.
            #expect(
                users.map(\.userID) == ["n-late", "n-soon", "s-0", "s-1", "s-2", "s-3", "s-4", "s-5", "w-1", "w-2"])
            #expect(
                users.map(\.reason) == [
                    .notified, .notified, .sweep, .sweep, .sweep, .sweep, .sweep, .sweep, .new, .new,
                ])
            #expect(users[1].receipts.count == 2, "a user comes whole")
            #expect(users[1].knownTransactionIDs == ["n-soon-1"])
            #expect(try queue.countDue() == 11)

            // An explicit --older-than adds its users to the rest, in the same order.
            let again = try queue.fill(
                asOf: Self.t0, sweepDays: 5, olderThanCutoff: Self.days(-2).addingTimeInterval(1),
                rangeReceipts: rangeReceipts)
            #expect(again[.olderThan] == 3 && again[.sweep] == 6 && again[.notified] == 2, "filled afresh")
            let merged = try Self.readAll(queue)
            #expect(
                merged.map(\.userID) == [
                    "n-late", "n-soon", "s-0", "s-1", "s-2", "s-3", "s-4", "s-5", "s-6", "s-7", "s-8", "w-1", "w-2",
                ])
            #expect(merged.first { $0.userID == "s-7" }?.reason == .olderThan)
            #expect(merged.first { $0.userID == "s-4" }?.reason == .sweep)

            // --limit in receipts, in the queue's order: 1 + 2 + 1.
            let limited = RunQueue(
                connection: try database.connect(), runID: runID, shardIndex: 0, shardCount: 1, limit: 4, pageSize: 3)
            _ = try limited.fill(asOf: Self.t0, sweepDays: 5, olderThanCutoff: nil)
            #expect(try limited.countDue() == 4)
            #expect(try Self.readAll(limited).map(\.userID) == ["n-late", "n-soon", "s-0"])
        }
    }

    @Test(arguments: ranges)
    func withinTheDayTheQuotaCutsTheSoonestToEndAreSwept(rangeReceipts: Int?) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try NotificationStoreTests.run(connection)
            // Seven users verified the same night, and one the night before (taken first whatever it ends).
            // With D = 30 the quota is one; with D = 2, half a day after that night, it is four.
            let ends: [String: Double?] = ["a": 20, "b": nil, "c": 3, "d": 1, "e": 9, "f": nil, "g": .infinity]
            for (user, end) in ends {
                try Self.receipt(connection, user, verified: Self.days(-3))
                try Self.verifiedWhole(
                    connection, user, at: Self.days(-3).addingTimeInterval(Double(user.unicodeScalars.first!.value % 7))
                )
                if let end {
                    try connection.execute(
                        """
                        INSERT INTO entitlements (user_id, entitlement, active, expires_at)
                        VALUES (\(user), 'pro', true, \(end == .infinity ? "infinity" : Self.text(Self.days(end)))::timestamptz)
                        """)
                }
            }
            try Self.receipt(connection, "z", verified: Self.days(-4))
            try Self.verifiedWhole(connection, "z", at: Self.days(-4))
            let queue = RunQueue(
                connection: try database.connect(), runID: runID, shardIndex: 0, shardCount: 1, limit: nil)
            let one = try queue.fill(asOf: Self.t0, sweepDays: 30, olderThanCutoff: nil, rangeReceipts: rangeReceipts)
            #expect(one.quota == 1)
            #expect(try Self.readAll(queue).map(\.userID) == ["z"])
            // Within the day: the soonest end first, an end at infinity after every other, no end last, by user.
            let four = try queue.fill(
                asOf: Self.days(-2.5), sweepDays: 2, olderThanCutoff: nil, rangeReceipts: rangeReceipts)
            #expect(four.quota == 4 && four[.sweep] == 4)
            #expect(try Self.readAll(queue).map(\.userID) == ["c", "d", "e", "z"])
            try connection.execute("DELETE FROM entitlements WHERE user_id IN ('c', 'd', 'e')")
            _ = try queue.fill(asOf: Self.days(-2.5), sweepDays: 2, olderThanCutoff: nil, rangeReceipts: rangeReceipts)
            #expect(try Self.readAll(queue).map(\.userID) == ["a", "b", "g", "z"])
        }
    }

    static func text(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    @Test(arguments: [1, 3, 200])
    func limitCountsReceiptsExactlyAsTheDueUserReaderDoes(pageSize: Int) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try NotificationStoreTests.run(connection)
            for user in 0..<12 {
                for _ in 0...(user % 4) {
                    try Self.receipt(connection, String(format: "u-%02d", user), verified: Self.days(-3))
                }
            }
            for limit in [nil, 0, 1, 5, 7, 13, 100] as [Int?] {
                let queue = RunQueue(
                    connection: try database.connect(), runID: runID, shardIndex: 0, shardCount: 1, limit: limit,
                    pageSize: pageSize)
                _ = try queue.fill(asOf: Self.t0, sweepDays: 30, olderThanCutoff: Self.days(-1))
                let reader = DueUserReader(
                    connection: try database.connect(), cutoff: Self.days(-1), shardIndex: 0, shardCount: 1,
                    limit: limit, pageSize: pageSize)
                // Counted before the walk, as the run does (the reader's count spends what it has read).
                let (queuedCount, readCount) = (try queue.countDue(), try reader.countDue())
                #expect(queuedCount == readCount, "limit \(String(describing: limit))")
                let queued = try Self.readAll(queue)
                let read = try DueUserReaderTests.readAll(reader)
                #expect(queued.map(\.userID) == read.map(\.userID), "limit \(String(describing: limit))")
                #expect(queued.map { $0.receipts.map(\.id) } == read.map { $0.receipts.map(\.id) })
                #expect(queued.allSatisfy { $0.reason == .olderThan })
                if limit == 5, pageSize == 200 {
                    #expect(queued.map(\.userID) == ["u-00", "u-01"], "1 + 2 receipts; u-02's 3 do not fit in 2")
                }
            }
        }
    }

    @Test(arguments: ranges)
    func shardsQueueDisjointUsersThatTogetherAreEveryone(rangeReceipts: Int?) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try NotificationStoreTests.run(connection)
            var everyone: Set<String> = []
            for i in 0..<40 {
                let user = "user-\(i)"
                everyone.insert(user)
                try Self.receipt(connection, user, verified: i % 3 == 0 ? nil : Self.days(-Double(i % 7)))
                if i % 3 != 0 { try Self.verifiedWhole(connection, user, at: Self.days(-Double(i % 7))) }
                if i % 5 == 0 { try Self.notify(connection, user, runID: runID) }
            }
            var seen: [String: DueReason] = [:]
            for shard in 0..<3 {
                // One run per shard, as in production: each has its own queue.
                let queue = RunQueue(
                    connection: try database.connect(), runID: try NotificationStoreTests.run(connection),
                    shardIndex: shard, shardCount: 3, limit: nil)
                _ = try queue.fill(
                    asOf: Self.t0, sweepDays: 5, olderThanCutoff: Self.t0.addingTimeInterval(1),
                    rangeReceipts: rangeReceipts)
                for user in try Self.readAll(queue) {
                    #expect(seen[user.userID] == nil, "\(user.userID) in two shards")
                    seen[user.userID] = user.reason
                }
            }
            #expect(Set(seen.keys) == everyone)
            for (user, reason) in seen {
                let i = Int(user.dropFirst(5))!
                let expected: DueReason = i % 5 == 0 ? .notified : i % 3 == 0 ? .new : reason
                #expect(reason == expected, "\(user)")
            }
        }
    }

    @Test(arguments: ranges)
    func aDryRunsNotifiedUsersAreQueuedInTheirShardOnly(rangeReceipts: Int?) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try NotificationStoreTests.run(connection, dryRun: true)
            for user in ["d-1", "d-2", "d-3", "d-4"] {
                try Self.receipt(connection, user, verified: Self.t0)
                try Self.verifiedWhole(connection, user, at: Self.t0)
            }
            let shardOf = { (user: String) throws -> Int in
                try connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT \(DueUserReader.shardExpression(column: "$1::text", count: 2)) AS s",
                        binds: [user.postgresBind])
                ).first!.decode("s")
            }
            let dry: Set<String> = ["d-1", "d-2", "d-3", "d-gone"]
            let queue = RunQueue(
                connection: try database.connect(), runID: runID, shardIndex: 0, shardCount: 2, limit: nil)
            let counts = try queue.fill(
                asOf: Self.t0, sweepDays: 30, olderThanCutoff: nil, dryRunNotified: dry, rangeReceipts: rangeReceipts)
            let expected = try ["d-1", "d-2", "d-3"].filter { try shardOf($0) == 0 }
            let users = try Self.readAll(queue)
            #expect(users.filter { $0.reason == .notified }.map(\.userID) == expected)
            #expect(counts[.notified] == expected.count)
            #expect(try NotificationStoreTests.count(connection, "recon_notifications") == 0)
        }
    }

    @Test func theQueueIsDeletedWhenTheRunEnds() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try Self.world(connection)
            // A stopped run only deletes its scratch rows; one that ran to the end flags from them first.
            for stopped in [true, false] {
                let queue = RunQueue(connection: connection, runID: runID, shardIndex: 0, shardCount: 1, limit: nil)
                #expect(try queue.fill(asOf: Self.t0, sweepDays: 5, olderThanCutoff: nil).total == 10)
                let finalizer = RunFinalizer(connection: connection)
                if stopped {
                    try finalizer.deleteScratchRows(runID: runID)
                } else {
                    try finalizer.flagSharedTransactions(runID: runID)
                }
                #expect(try NotificationStoreTests.count(connection, "recon_run_queue") == 0)
            }
        }
    }

    /// The queue is emptied at the end of every run and filled in bulk at the start of the next, before
    /// autovacuum analyzes it. A page must still walk the primary key from where the last one stopped:
    /// planned from the empty table's statistics, a `LIMIT` read and sorted every user after it.
    @Test func aPageWalksTheQueueByItsKeyWhateverTheStatisticsSay() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try NotificationStoreTests.run(connection)
            try connection.execute("ANALYZE recon_run_queue")
            try connection.execute(
                """
                INSERT INTO recon_run_queue (run_id, user_id, reason)
                SELECT \(runID), 'u-' || lpad(i::text, 6, '0'), 'older_than' FROM generate_series(1, 20000) i
                """)
            for through in [nil, "u-019000"] {
                let page = RunQueue.pageCursor(runID: runID, after: "u-000200", through: through)
                let plan = try connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + page.sql, binds: page.binds))
                    .map { try $0.decode("QUERY PLAN", as: String.self) }.joined(separator: "\n")
                #expect(plan.contains("Index Scan using recon_run_queue_pkey"), "\(plan)")
                #expect(!plan.contains("Sort"), "\(plan)")
            }
        }
    }
}
