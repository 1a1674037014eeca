import Foundation
import Postgres
import ReconSchema
import TestSupport
import Testing

@testable import AppStoreReceipts
@testable import Reconciliation

/// The notifications the job reads from Apple's history (CONTRACT §6, §9): stored once, every holder
/// named, the unmatched re-resolved, the cursor moved only after a whole span, a notification handled
/// once and only by a conclusive, committed write of its user.
@Suite struct NotificationStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let key = NotificationCursorKey(shardCount: 1, environment: .production, bundleID: "com.example.app")

    /// A verified notification about `original` (nil: one without a transaction, like TEST).
    static func notification(
        _ uuid: String, original: String?, transaction: String? = nil, type: String = "DID_RENEW",
        subtype: String? = nil, signed: Date = t0, deliveryFailed: Bool = false
    ) -> NotificationRecord {
        let verified = VerifiedNotification(
            notification: SignedNotification(
                notificationType: .init(rawValue: type), subtype: subtype.map { .init(rawValue: $0) },
                notificationUUID: uuid, version: "2.0", signedDate: signed,
                data: .init(environment: .production, bundleID: "com.example.app")),
            transaction: original.map {
                SignedTransaction(
                    transactionID: transaction ?? "\($0)-renewal", originalTransactionID: $0,
                    bundleID: "com.example.app", productID: "com.example.monthly", environment: .production)
            },
            renewalInfo: nil, deliveryFailed: deliveryFailed)
        return NotificationRecord(verified)
    }

    static func run(_ connection: PostgresConnection, dryRun: Bool = false) throws -> Int64 {
        try connection.query(
            "INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'running', \(dryRun), now()) RETURNING id"
        ).first!.decode("id")
    }

    /// A stored purchase: `user` holds `transaction` of `original` (and a receipt, so the user can be queued).
    static func holds(_ connection: PostgresConnection, user: String, transaction: String, original: String) throws {
        try connection.execute(
            """
            INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id)
            VALUES (\(transaction), \(original), 'com.example.monthly', \(user))
            """)
        try connection.execute(
            """
            INSERT INTO receipts (user_id, receipt_data)
            SELECT \(user), 'x' WHERE NOT EXISTS (SELECT 1 FROM receipts WHERE user_id = \(user))
            """)
    }

    static func pending(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            "SELECT notification_uuid || '/' || user_id AS p FROM recon_notification_users WHERE handled_run_id IS NULL ORDER BY 1"
        ).map { try $0.decode("p") }
    }

    static func count(_ connection: PostgresConnection, _ table: String) throws -> Int {
        try connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \(table)")).first!.decode("n")
    }

    @Test func theMigrationCountsEveryUserOfAPopulatedDatabaseAsVerifiedWhenTheirOldestReceiptWas() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            _ = try Migrator(migrations: Migration.all.filter { $0.version < "0007" }).apply(on: connection)
            let runs = try (0..<2).map { _ in try Self.run(connection) }
            func receipt(_ user: String, verified: Date?, run: Int64?) throws {
                let id: Int64 = try connection.query(
                    "INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), 'x') RETURNING id"
                ).first!.decode("id")
                guard let verified else { return }
                try connection.execute(
                    """
                    INSERT INTO recon_receipt_state (receipt_id, last_verified_at, last_outcome, last_run_id)
                    VALUES (\(id), \(verified), 'valid', \(run))
                    """)
            }
            try receipt("alice", verified: Self.t0, run: runs[1])
            try receipt("alice", verified: Self.t0.addingTimeInterval(-3_600), run: runs[0])
            try receipt("bob", verified: Self.t0.addingTimeInterval(60), run: nil)
            try receipt("carol", verified: nil, run: nil)
            _ = try Migrator().apply(on: connection)
            let rows = try connection.query("SELECT user_id, verified_at, last_run_id FROM recon_user_state ORDER BY 1")
            #expect(
                try rows.map { try $0.decode("user_id", as: String.self) } == ["alice", "bob"], "carol never verified")
            #expect(try rows[0].decode("verified_at", as: Date.self) == Self.t0.addingTimeInterval(-3_600))
            #expect(try rows[0].decode("last_run_id", as: Int64?.self) == runs[1])
            #expect(try rows[1].decode("verified_at", as: Date.self) == Self.t0.addingTimeInterval(60))
        }
    }

    @Test func aBatchStoredTwiceIsStoredOnceWithItsHolders() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let store = NotificationStore(connection: connection)
            let runID = try Self.run(connection)
            try Self.holds(connection, user: "user-a", transaction: "o1-1", original: "o1")
            try Self.holds(connection, user: "user-b", transaction: "o1-2", original: "o1")
            try Self.holds(connection, user: "user-c", transaction: "t9", original: "o9-other")
            let batch = [
                Self.notification("n-shared", original: "o1", deliveryFailed: true),
                Self.notification("n-by-transaction", original: "o9", transaction: "t9"),
                Self.notification("n-unknown", original: "o404", type: "REFUND"),
                Self.notification("n-test", original: nil, type: "TEST"),
                Self.notification("n-shared", original: "o1", deliveryFailed: true),
            ]
            let first = try store.store(batch, runID: runID)
            #expect(first == NotificationStoreCounts(stored: 4, known: 1, usersNamed: 3, unmatched: 1))
            let again = try store.store(batch, runID: runID)
            #expect(again == NotificationStoreCounts(stored: 0, known: 5, usersNamed: 0, unmatched: 0))
            #expect(try Self.count(connection, "recon_notifications") == 4)
            #expect(
                try Self.pending(connection) == ["n-by-transaction/user-c", "n-shared/user-a", "n-shared/user-b"],
                "both holders of the shared purchase are named")
            let rows = try connection.query(
                """
                SELECT notification_uuid, notification_type, user_id, transaction_id, original_transaction_id,
                       product_id, delivery_failed, environment, bundle_id, signed_at, run_id
                FROM recon_notifications ORDER BY notification_uuid
                """)
            #expect(try rows.map { try $0.decode("user_id", as: String?.self) } == ["user-c", "user-a", nil, nil])
            #expect(
                try rows.map { try $0.decode("transaction_id", as: String?.self) } == [
                    "t9", "o1-renewal", nil, "o404-renewal",
                ])
            #expect(try rows.map { try $0.decode("delivery_failed", as: Bool.self) } == [false, true, false, false])
            #expect(try rows.allSatisfy { try $0.decode("signed_at", as: Date.self) == Self.t0 })
            #expect(try rows.allSatisfy { try $0.decode("run_id", as: Int64.self) == runID })
            #expect(try rows[2].decode("notification_type", as: String.self) == "TEST")
            #expect(try rows.allSatisfy { try $0.decode("environment", as: String.self) == "production" })
        }
    }

    @Test func aDryRunReadsTheHoldersWithoutWritingAnything() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try Self.holds(connection, user: "user-a", transaction: "o1-1", original: "o1")
            try Self.holds(connection, user: "user-b", transaction: "o1-2", original: "o1")
            try Self.holds(connection, user: "user-c", transaction: "t9", original: "o9-other")
            let holders = try NotificationStore(connection: connection).holders(of: [
                Self.notification("n1", original: "o1"), Self.notification("n2", original: "o9", transaction: "t9"),
                Self.notification("n3", original: "o404"), Self.notification("n4", original: nil, type: "TEST"),
            ])
            #expect(holders == ["user-a", "user-b", "user-c"])
            #expect(try NotificationStore(connection: connection).holders(of: []) == [])
            #expect(try Self.count(connection, "recon_notifications") == 0)
            #expect(try Self.count(connection, "recon_notification_users") == 0)
        }
    }

    @Test func anUnmatchedNotificationIsMatchedOnceTheAppStoresThePurchase() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let store = NotificationStore(connection: connection)
            let runID = try Self.run(connection)
            let counts = try store.store([Self.notification("n-late", original: "o7")], runID: runID)
            #expect(counts.unmatched == 1)
            #expect(try store.resolveUnmatched(receivedSince: Self.t0) == 0, "nobody holds it yet")
            try Self.holds(connection, user: "user-late", transaction: "o7-1", original: "o7")
            let now: Date = try connection.query("SELECT now() AS now").first!.decode("now")
            #expect(
                try store.resolveUnmatched(receivedSince: now.addingTimeInterval(3_600)) == 0,
                "received before the window")
            #expect(try store.resolveUnmatched(receivedSince: now.addingTimeInterval(-3_600)) == 1)
            #expect(try Self.pending(connection) == ["n-late/user-late"])
            #expect(
                try connection.query("SELECT user_id FROM recon_notifications").first!.decode(
                    "user_id", as: String?.self)
                    == "user-late")
            #expect(try store.resolveUnmatched(receivedSince: now.addingTimeInterval(-3_600)) == 0, "matched once")
        }
    }

    @Test func oneShardOfASetReadsAtATime() throws {
        try TestDatabase.with { database in
            let first = NotificationStore(connection: try database.connect())
            let second = NotificationStore(connection: try database.connect())
            #expect(try first.lockReader(Self.key, timeoutSeconds: 1))
            let started = Date()
            #expect(try !second.lockReader(Self.key, timeoutSeconds: 0.3))
            #expect(Date().timeIntervalSince(started) >= 0.25, "it waited for the timeout")
            #expect(try !second.lockReader(Self.key, timeoutSeconds: 0))
            var otherSet = Self.key
            otherSet.shardCount = 4
            #expect(try second.lockReader(otherSet, timeoutSeconds: 0.3), "another shard set has its own reader")
            try first.unlockReader(Self.key)
            #expect(try second.lockReader(Self.key, timeoutSeconds: 0.3))
            // The session's own timeouts are back after the wait.
            #expect(
                try second.connection.query("SHOW lock_timeout").first!.decode("lock_timeout", as: String.self) == "0")
        }
    }

    /// Apple's history as a list, read the way the intake does: pages of two, each stored in its own
    /// transaction, the cursor moved after the last page; `crashAfterPages` stops before the cursor moves.
    static func intake(
        _ store: NotificationStore, history: [NotificationRecord], until end: Date, runID: Int64,
        overlap: TimeInterval = 3_600, crashAfterPages: Int? = nil
    ) throws -> NotificationStoreCounts {
        let start = try store.readThrough(key).map { $0.addingTimeInterval(-overlap) } ?? .distantPast
        let span = history.filter { $0.signedDate! >= start && $0.signedDate! < end }
        var total = NotificationStoreCounts()
        for (index, page) in stride(from: 0, to: span.count, by: 2).map({ Array(span[$0..<min($0 + 2, span.count)]) })
            .enumerated()
        {
            if let crash = crashAfterPages, index == crash { return total }
            let counts = try store.store(page, runID: runID)
            total.stored += counts.stored
            total.known += counts.known
        }
        try store.advance(key, to: end, runID: runID)
        return total
    }

    @Test func theCursorCarriesOnAcrossIntakesAndACrashWithNothingStoredOrHandledTwice() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let store = NotificationStore(connection: connection)
            let users = (0..<8).map { "user-\($0)" }
            for (index, user) in users.enumerated() {
                try Self.holds(connection, user: user, transaction: "o\(index)-1", original: "o\(index)")
            }
            // One notification per user, an hour apart.
            let history = users.indices.map {
                Self.notification("n\($0)", original: "o\($0)", signed: Self.t0.addingTimeInterval(Double($0) * 3_600))
            }
            let hour = { (h: Double) in Self.t0.addingTimeInterval(h * 3_600) }
            #expect(try store.readThrough(Self.key) == nil)

            let run1 = try Self.run(connection)
            #expect(try Self.intake(store, history: history, until: hour(3.5), runID: run1).stored == 4)
            #expect(try store.readThrough(Self.key) == hour(3.5))
            try Self.write(connection, runID: run1, users: ["user-0", "user-1", "user-2", "user-3"])

            // The second run stores two pages and dies before its cursor moves.
            let run2 = try Self.run(connection)
            let crashed = try Self.intake(store, history: history, until: hour(7.5), runID: run2, crashAfterPages: 2)
            #expect(crashed.stored == 3 && crashed.known == 1, "n3 again (the overlap), then n4, n5, n6")
            #expect(try store.readThrough(Self.key) == hour(3.5), "the cursor did not move")
            try Self.write(connection, runID: run2, users: ["user-4"])

            // The next run reads the span again: everything it already has is known, nothing handled again.
            let run3 = try Self.run(connection)
            let reread = try Self.intake(store, history: history, until: hour(7.5), runID: run3)
            #expect(reread.stored == 1 && reread.known == 4, "only n7 is new")
            #expect(try store.readThrough(Self.key) == hour(7.5))
            #expect(try Self.count(connection, "recon_notifications") == 8)
            #expect(try Self.pending(connection) == ["n5/user-5", "n6/user-6", "n7/user-7"])
            try Self.write(connection, runID: run3, users: users)
            let handled = try connection.query(
                "SELECT user_id, handled_run_id FROM recon_notification_users ORDER BY user_id")
            #expect(
                try handled.map { try $0.decode("handled_run_id", as: Int64.self) }
                    == [run1, run1, run1, run1, run2, run3, run3, run3],
                "each notification handled once, by the first write of its user after it was stored")
        }
    }

    /// Writes `users` as the writer does, each conclusive, with nothing else in their plans.
    static func write(
        _ connection: PostgresConnection, runID: Int64, users: [String], conclusive: Bool = true, dryRun: Bool = false,
        verifiedAt: Date = t0
    ) throws {
        _ = try UnitWriter(connection: connection).write(
            runID: runID, dryRun: dryRun, verifiedAt: verifiedAt,
            units: users.map { UnitWriter.Unit(userID: $0, conclusive: conclusive) { _ in UnitPlan() } })
    }

    @Test func aNotificationIsHandledOnlyByACommittedConclusiveWrite() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let store = NotificationStore(connection: connection)
            for user in ["settled", "unsettled", "failed"] {
                try Self.holds(connection, user: user, transaction: "\(user)-1", original: user)
            }
            try connection.execute(
                "INSERT INTO recon_user_state (user_id, verified_at) VALUES ('unsettled', \(Self.t0.addingTimeInterval(-86_400)))"
            )
            let runID = try Self.run(connection)
            _ = try store.store(
                ["settled", "unsettled", "failed"].map { (user: String) in
                    Self.notification("n-\(user)", original: user)
                }, runID: runID)

            try Self.write(connection, runID: try Self.run(connection, dryRun: true), users: ["settled"], dryRun: true)
            #expect(try Self.pending(connection).count == 3, "a dry run marks nothing")
            #expect(try Self.count(connection, "recon_user_state") == 1)

            // A batch rolled back (its last user's plan fails) marks nobody.
            struct Failure: Error {}
            #expect(throws: Failure.self) {
                try UnitWriter(connection: connection).write(
                    runID: runID, dryRun: false, verifiedAt: Self.t0,
                    units: [
                        UnitWriter.Unit(userID: "settled", conclusive: true) { _ in UnitPlan() },
                        UnitWriter.Unit(userID: "failed", conclusive: true) { _ -> UnitPlan? in throw Failure() },
                    ])
            }
            #expect(try Self.pending(connection).count == 3, "nothing marked by a batch that did not commit")

            let verifiedAt = Self.t0.addingTimeInterval(600)
            _ = try UnitWriter(connection: connection).write(
                runID: runID, dryRun: false, verifiedAt: verifiedAt,
                units: [
                    UnitWriter.Unit(userID: "settled", conclusive: true) { _ in UnitPlan() },
                    UnitWriter.Unit(userID: "unsettled", conclusive: false) { _ in UnitPlan() },
                    UnitWriter.Unit(userID: "failed", conclusive: false) { _ in UnitPlan() },
                ])
            #expect(try Self.pending(connection) == ["n-failed/failed", "n-unsettled/unsettled"])
            let states = try connection.query(
                "SELECT user_id, verified_at, last_run_id FROM recon_user_state ORDER BY 1")
            #expect(try states.map { try $0.decode("user_id", as: String.self) } == ["failed", "settled", "unsettled"])
            #expect(
                try states[0].decode("verified_at", as: Date.self) == Date(timeIntervalSince1970: 0),
                "a user never verified whole enters the sweep at its head")
            #expect(try states[1].decode("verified_at", as: Date.self) == verifiedAt)
            #expect(try states[1].decode("last_run_id", as: Int64?.self) == runID)
            #expect(
                try states[2].decode("verified_at", as: Date.self) == Self.t0.addingTimeInterval(-86_400),
                "an inconclusive user keeps their place in the sweep")

            // Retention: only notifications whose holders are all handled (or that name nobody) go.
            _ = try store.store([Self.notification("n-nobody", original: "o404")], runID: runID)
            #expect(try store.deleteExpired(signedBefore: Self.t0) == 0, "none signed before")
            #expect(try store.deleteExpired(signedBefore: Self.t0.addingTimeInterval(1)) == 2)
            #expect(
                try connection.query("SELECT notification_uuid FROM recon_notifications ORDER BY 1").map {
                    try $0.decode("notification_uuid", as: String.self)
                } == ["n-failed", "n-unsettled"])
            #expect(try Self.count(connection, "recon_notification_users") == 2)
            // A pending holder whose receipts the app deleted is never queued again: it keeps nothing.
            try connection.execute("DELETE FROM receipts WHERE user_id = 'failed'")
            #expect(try store.deleteExpired(signedBefore: Self.t0.addingTimeInterval(1)) == 1)
            #expect(try Self.pending(connection) == ["n-unsettled/unsettled"])
        }
    }

    /// Every statement of the store, the queue and the writer's marks runs with the job role's grants
    /// (`JobPrivileges`, docs/integration.md) and no more.
    @Test func theJobRolesGrantsAreEnough() throws {
        try TestDatabase.with { database in
            let admin = try database.connect()
            try Self.holds(admin, user: "user-a", transaction: "o1-1", original: "o1")
            let runID = try Self.run(admin)
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: admin)
                let connection = try PostgresConnection(conninfo: role.conninfo)
                let store = NotificationStore(connection: connection)
                #expect(try store.lockReader(Self.key, timeoutSeconds: 1))
                _ = try store.readThrough(Self.key)
                let counts = try store.store(
                    [Self.notification("n1", original: "o1"), Self.notification("n2", original: "o2")], runID: runID)
                #expect(counts.stored == 2)
                _ = try store.holders(of: [Self.notification("n1", original: "o1")])
                _ = try store.resolveUnmatched(receivedSince: Self.t0)
                try store.advance(Self.key, to: Self.t0, runID: runID)
                let queue = RunQueue(connection: connection, runID: runID, shardIndex: 0, shardCount: 1, limit: nil)
                #expect(try queue.fill(asOf: Self.t0, sweepDays: 30, olderThanCutoff: Self.t0)[.notified] == 1)
                #expect(try queue.countDue() == 1)
                #expect(try RunQueueTests.readAll(queue).map(\.userID) == ["user-a"])
                #expect(try queue.takeNotified().isEmpty, "a join relabels the queue's users: UPDATE")
                try Self.write(connection, runID: runID, users: ["user-a"])
                try Self.write(connection, runID: runID, users: ["user-b"], conclusive: false)
                #expect(try store.deleteExpired(signedBefore: Self.t0.addingTimeInterval(1)) == 2)
                try RunFinalizer(connection: connection).deleteScratchRows(runID: runID)
                try store.unlockReader(Self.key)
            }
        }
    }
}
