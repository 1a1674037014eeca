import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// `run --backend server-api` nights driven by Apple's notification history (CONTRACT §9
/// "Notification history"): the built binary against a scripted App Store Server API and a real
/// database. Each test replays nights at instants two hours apart, so that each night's history starts
/// where the last one's cursor stopped.
@Suite struct NotificationNightTests {
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    static func day(_ offset: Double) -> Date { now.addingTimeInterval(offset * 86_400) }
    static func hoursAgo(_ hours: Double) -> Date { now.addingTimeInterval(-hours * 3600) }
    static func text(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
    typealias Transaction = ServerAPIScriptTransaction
    typealias Notification = ServerAPIScriptNotification

    /// A world of `users` subscribers (`u01`, `u02`, …), each with one StoreKit 2 row of a monthly
    /// subscription (transaction `1001`, `1002`, …) and the premium entitlement it pays for; Apple's
    /// history says the same.
    static func world(_ users: Int, _ body: (TestDatabase, PostgresConnection, ScriptedServerAPI) throws -> Void)
        throws
    {
        let api = try ScriptedServerAPI(chainValidity: day(-400)...day(400))
        try TestDatabase.with { database in
            let db = try database.connect()
            try db.executeScript("INSERT INTO products VALUES ('monthly', 'auto_renewable', 'premium', NULL);")
            for index in 1..<(users + 1) {
                let (user, id) = (user(index), transaction(index))
                let bought = Transaction(id: id, purchased: day(-10), expires: day(20), signed: day(-10))
                try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(api.sign(bought)))")
                try db.execute(
                    """
                    INSERT INTO entitlements (user_id, entitlement, active, expires_at, source)
                    VALUES (\(user), 'premium', true, \(day(20)), 'app_store')
                    """)
                api.script(.production, .transactionHistory, id: id, [.history([bought])])
            }
            try body(database, db, api)
        }
    }

    static func user(_ index: Int) -> String { String(format: "u%02d", index) }
    static func transaction(_ index: Int) -> String { String(1000 + index) }

    /// `index`'s subscription refunded `hours` ago, as Apple's history and a REFUND notification say it.
    static func refund(_ api: ScriptedServerAPI, _ index: Int, hoursAgo hours: Double, uuid: String) -> Notification {
        let refunded = Transaction(
            id: transaction(index), purchased: day(-10), expires: day(20), revoked: hoursAgo(hours))
        api.script(.production, .transactionHistory, id: transaction(index), [.history([refunded])])
        return Notification(uuid: uuid, type: "REFUND", transaction: refunded, signed: hoursAgo(hours))
    }

    static func run(
        _ database: TestDatabase, _ api: ScriptedServerAPI, asOf: Date, _ extra: [String] = []
    ) throws -> (result: ReceiptReconBinary.Result, summary: [String: Any]) {
        let result = try ReceiptReconBinary.run(
            ["run", "--backend", "server-api", "--as-of", text(asOf), "--json", "--max-attempts", "2"] + extra,
            environment: api.environment.merging(["DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example"])
            {
                $1
            })
        let summary =
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        return (result, summary)
    }

    static func strings(_ db: PostgresConnection, _ sql: PostgresQuery) throws -> [String] {
        try db.query(sql).map { try $0.decode("s", as: String.self) }
    }

    static func corrections(_ db: PostgresConnection) throws -> [String] {
        try strings(
            db,
            "SELECT user_id || ' ' || action || ' ' || reason AS s FROM recon_corrections ORDER BY run_id, user_id")
    }

    static func readThrough(_ db: PostgresConnection) throws -> Date? {
        try db.query("SELECT read_through FROM recon_notification_cursor").first?.decode("read_through")
    }

    /// The `startDate`/`endDate` of each Get Notification History request after the first `sent`
    /// requests, earliest first (pieces are read several at once).
    static func spans(_ api: ScriptedServerAPI, after sent: Int = 0) -> [(start: Date, end: Date)] {
        api.received.dropFirst(sent).compactMap(\.notificationSpan).map { ($0.lowerBound, $0.upperBound) }
            .sorted { $0.start < $1.start }
    }

    static func reasons(_ summary: [String: Any]) -> [String: Int] {
        summary["usersByReason"] as? [String: Int] ?? [:]
    }

    static func notifications(_ summary: [String: Any]) -> [String: Any] {
        summary["notifications"] as? [String: Any] ?? [:]
    }

    // MARK: - The night

    @Test func aNotifiedUserIsDueWhateverOlderThanSaysAndIsActedOnOnce() throws {
        try Self.world(4) { database, db, api in
            // Night 1: nobody verified yet, so everyone is new; the history since 3 days is empty.
            let first = try Self.run(database, api, asOf: Self.hoursAgo(4))
            #expect(first.result.status == 0, "\(first.result.output)")
            #expect(Self.reasons(first.summary)["new"] == 4, "\(first.summary)")
            let spans = Self.spans(api)
            #expect(spans.first.map { abs($0.start.timeIntervalSince(Self.hoursAgo(4 + 72))) < 120 } == true)
            #expect(spans.allSatisfy { $0.end.timeIntervalSince($0.start) <= 3600 }, "pieces of at most an hour")
            let cursor = try #require(try Self.readThrough(db))
            #expect(abs(cursor.timeIntervalSince(Self.hoursAgo(4))) <= 60)

            // Between the nights u02 was refunded, and the app's webhook missed it.
            let refund = Self.refund(api, 2, hoursAgo: 3, uuid: "n-refund-u02")
            api.scriptEveryID(.production, .notificationHistory, [.notifications([refund])])
            let sentBefore = api.received.count
            let second = try Self.run(database, api, asOf: Self.hoursAgo(2))
            #expect(second.result.status == 0, "\(second.result.output)")
            #expect(Self.reasons(second.summary)["notified"] == 1, "\(second.summary)")
            #expect(try Self.corrections(db) == ["u02 revoke refund"])
            // The night read from the cursor less an hour, and asked Apple about nobody it had no reason to.
            let secondSpans = Self.spans(api, after: sentBefore)
            #expect(
                secondSpans.first.map { abs($0.start.timeIntervalSince(cursor.addingTimeInterval(-3600))) < 1 } == true)
            let asked = Set(api.received.dropFirst(sentBefore).filter { $0.endpoint == .transactionHistory }.map(\.id))
            #expect(asked.contains("1002"))
            #expect(asked.count <= 2, "notified u02 and the sweep's one user of four: \(asked)")
            #expect(
                try Self.strings(
                    db, "SELECT user_id || ' ' || (handled_run_id IS NOT NULL)::text AS s FROM recon_notification_users"
                )
                    == ["u02 true"])

            // Night 3 reads the refund again (the overlap): the same row, nobody acted on twice.
            let third = try Self.run(database, api, asOf: Self.now)
            #expect(third.result.status == 0, "\(third.result.output)")
            #expect(Self.reasons(third.summary)["notified"] ?? 0 == 0, "\(third.summary)")
            #expect(Self.notifications(third.summary)["read"] as? Int == 1)
            #expect(Self.notifications(third.summary)["stored"] as? Int == 0)
            #expect(try Self.corrections(db) == ["u02 revoke refund"])
            #expect(try Self.strings(db, "SELECT count(*)::text AS s FROM recon_notifications") == ["1"])
        }
    }

    @Test func aForgedNotificationIsNeverBelievedAndAnUnknownTransactionIsListed() throws {
        try Self.world(2) { database, db, api in
            #expect(try Self.run(database, api, asOf: Self.hoursAgo(4)).result.status == 0)
            let cursor = try Self.readThrough(db)
            // A "refund" of u01 that Apple never signed, a purchase no row holds (whose delivery failed),
            // a type this build does not know about u02's subscription, and Apple's test notification.
            let stranger = Transaction(id: "9999", purchased: Self.hoursAgo(3), expires: Self.day(30))
            let u02 = Transaction(id: "1002", purchased: Self.day(-10), expires: Self.day(20))
            api.scriptEveryID(
                .production, .notificationHistory,
                [
                    .notifications([
                        Notification(
                            uuid: "n-forged", type: "REFUND",
                            transaction: Transaction(
                                id: "1001", purchased: Self.day(-10), expires: Self.day(20),
                                revoked: Self.hoursAgo(3)),
                            signed: Self.hoursAgo(3), forged: true),
                        Notification(
                            uuid: "n-stranger", type: "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: stranger,
                            signed: Self.hoursAgo(3), deliveryFailed: true),
                        Notification(uuid: "n-future", type: "FUTURE_TYPE", transaction: u02, signed: Self.hoursAgo(3)),
                        Notification(uuid: "n-test", type: "TEST", transaction: nil, signed: Self.hoursAgo(3)),
                    ])
                ])

            // A dry run reads the history but stores nothing and leaves the cursor.
            let dry = try Self.run(database, api, asOf: Self.hoursAgo(2), ["--dry-run"])
            #expect(dry.result.status == 0, "\(dry.result.output)")
            #expect(Self.notifications(dry.summary)["rejected"] as? Int == 1, "\(dry.summary)")
            #expect(Self.reasons(dry.summary)["notified"] == 1, "u02 only: \(dry.summary)")
            #expect(try Self.strings(db, "SELECT count(*)::text AS s FROM recon_notifications") == ["0"])
            #expect(try Self.readThrough(db) == cursor)

            let night = try Self.run(database, api, asOf: Self.hoursAgo(2))
            #expect(night.result.status == 0, "\(night.result.output)")
            let figures = Self.notifications(night.summary)
            #expect(figures["read"] as? Int == 3, "\(figures)")
            #expect(figures["rejected"] as? Int == 1)
            #expect(figures["unmatched"] as? Int == 1)
            #expect(figures["deliveryFailed"] as? Int == 1)
            #expect((figures["unknownTypes"] as? [String: Int]) == ["FUTURE_TYPE": 1])
            #expect(night.result.stderr.contains("event=notification.rejected"))
            #expect(night.result.stderr.contains("event=notification.unknown_type"))
            #expect(try Self.corrections(db).isEmpty, "a forged refund revokes nothing")
            #expect(
                !(try Self.strings(db, "SELECT notification_uuid AS s FROM recon_notifications")).contains("n-forged"))

            let export = try ReceiptReconBinary.run(
                [
                    "export", "notifications_unmatched", "--from", Self.text(Self.day(-1)), "--to",
                    Self.text(Self.day(1)),
                ], environment: ["DATABASE_URL": database.conninfo])
            #expect(export.status == 0, "\(export.output)")
            let lines = export.stdout.split(separator: "\r\n").map(String.init)
            #expect(
                lines.first
                    == "notification_uuid,notification_type,subtype,signed_at,environment,transaction_id,"
                    + "original_transaction_id,product_id,run_id")
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.last?.hasPrefix("n-stranger,SUBSCRIBED,INITIAL_BUY,") == true, "\(lines)")
            #expect(lines.last?.contains(",production,9999,9999,monthly,") == true, "\(lines)")
        }
    }

    @Test func aPageThatFailsLeavesTheCursorAndTheNextNightReadsTheSpanAgain() throws {
        try Self.world(3) { database, db, api in
            #expect(try Self.run(database, api, asOf: Self.hoursAgo(4)).result.status == 0)
            let cursor = try Self.readThrough(db)
            // Signed in the hour before the cursor, which the night reads first (its overlap).
            let refund = Self.refund(api, 3, hoursAgo: 4.5, uuid: "n-refund-u03")
            // Every piece's second page fails, after its retries: the first piece ends the read.
            api.scriptEveryID(.production, .notificationHistory, [.notifications([refund], paginationToken: "page-2")])
            api.script(.production, .notificationHistory, id: "page-2", [.error(5_000_001, status: 500)])
            let second = try Self.run(database, api, asOf: Self.hoursAgo(2))
            #expect(second.result.status == 0, "\(second.result.output)")
            #expect(Self.notifications(second.summary)["incomplete"] != nil, "\(second.summary)")
            #expect(second.result.stderr.contains("event=notifications.incomplete"))
            // What was read is acted on; the cursor stays for the next night.
            #expect(try Self.corrections(db) == ["u03 revoke refund"])
            #expect(try Self.readThrough(db) == cursor)

            api.scriptEveryID(.production, .notificationHistory, [.notifications([refund])])
            api.script(.production, .notificationHistory, id: "page-2", [.notifications([])])
            let before = api.received.count
            let third = try Self.run(database, api, asOf: Self.now)
            #expect(third.result.status == 0, "\(third.result.output)")
            let reread = Self.spans(api, after: before)
            #expect(reread.first.map { abs($0.start.timeIntervalSince(cursor!.addingTimeInterval(-3600))) < 1 } == true)
            #expect(Self.reasons(third.summary)["notified"] ?? 0 == 0)
            #expect(try Self.corrections(db) == ["u03 revoke refund"])
            #expect(try Self.readThrough(db).map { $0 > cursor! } == true)
        }
    }

    @Test func appleRefusingTheKeyForTheHistoryStopsTheRunBeforeAnyCorrection() throws {
        try Self.world(2) { database, db, api in
            _ = Self.refund(api, 1, hoursAgo: 30, uuid: "unused")
            api.scriptEveryID(.production, .notificationHistory, [.unauthorized])
            let night = try Self.run(database, api, asOf: Self.now)
            #expect(night.result.status == 78, "\(night.result.output)")
            #expect(try Self.corrections(db).isEmpty)
            #expect(api.received.allSatisfy { $0.endpoint == .notificationHistory })
        }
    }

    @Test func usersAreAskedOnceApplesFirstPageIsReadNotWhenItsPieceEnds() throws {
        try Self.world(2) { database, _, api in
            // The night's one piece is two pages, the second slow to come. The first page is Apple's word on
            // the configuration: users need not wait for the rest of the piece.
            api.script(.production, .notificationHistory, id: "", [.notifications([], paginationToken: "page-2")])
            api.script(.production, .notificationHistory, id: "page-2", [.delayed(.seconds(2), .notifications([]))])
            let night = try Self.run(database, api, asOf: Self.now, ["--notifications-since", "1h"])
            #expect(night.result.status == 0, "\(night.result.output)")
            let secondPage = try #require(
                api.received.first { $0.endpoint == .notificationHistory && $0.id == "page-2" })
            let firstUser = try #require(api.received.first { $0.endpoint == .transactionHistory })
            #expect(
                firstUser.receivedAt < secondPage.receivedAt + .seconds(1),
                "the first user was asked \(firstUser.receivedAt - secondPage.receivedAt) after the second page")
        }
    }

    @Test func withoutNotificationsTheNightSelectsByOlderThanAlone() throws {
        try Self.world(2) { database, db, api in
            let night = try Self.run(database, api, asOf: Self.now, ["--no-notifications"])
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect(!api.received.contains { $0.endpoint == .notificationHistory })
            #expect(night.summary["usersByReason"] == nil)
            #expect(try Self.readThrough(db) == nil)
            #expect(night.summary["usersProcessed"] as? Int == 2)
        }
    }

    // MARK: - The budget

    @Test func aSpentBudgetEndsTheNightCompletedSayingSo() throws {
        try Self.world(12) { database, db, api in
            let night = try Self.run(
                database, api, asOf: Self.now,
                ["--max-requests-per-hour", "5", "--budget-hours", "0", "--notifications-since", "1h"])
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect(night.summary["status"] as? String == "completed")
            let reason = night.summary["reason"] as? String ?? ""
            #expect(reason.hasPrefix("budget: --max-requests-per-hour 5 spent for transaction_history"), "\(reason)")
            #expect(reason.contains("users left for the next night"))
            let history = api.received.filter { $0.endpoint == .transactionHistory }.count
            #expect(history <= 5, "Apple saw \(history) history requests")
            #expect(
                try Self.strings(
                    db,
                    "SELECT coalesce(max(granted), 0)::text AS s FROM recon_request_budget WHERE endpoint = 'transaction_history'"
                )
                .first.flatMap { Int($0) }.map { $0 <= 5 } == true)
            let processed = night.summary["usersProcessed"] as? Int ?? 0
            #expect(processed < 12)
            let budget = night.summary["budget"] as? [String: Any] ?? [:]
            #expect(budget["usersLeft"] as? Int == 12 - processed, "\(budget)")
            // Users are counted by what happened to them, not by what the queue took: those verified, by
            // reason, and those left for the next night, by reason.
            let verified = Self.reasons(night.summary)
            let left = night.summary["usersLeftByReason"] as? [String: Int] ?? [:]
            #expect(verified.values.reduce(0, +) == processed, "\(verified)")
            #expect(left.values.reduce(0, +) == 12 - processed, "\(left)")
            #expect(Set(verified.keys).union(left.keys) == ["new"], "\(verified) \(left)")
        }
    }

    /// A user whose rows were not all asked about when the budget ran out is not written: its lapsed
    /// first row alone would revoke what its second row still pays for.
    @Test func aUserCutShortByTheBudgetIsLeftWholeForTheNextNight() throws {
        try Self.world(0) { database, db, api in
            for index in 1...8 {
                let user = Self.user(index)
                let lapsed = Transaction(id: "\(2000 + index)", purchased: Self.day(-40), expires: Self.day(-10))
                let paying = Transaction(id: "\(3000 + index)", purchased: Self.day(-10), expires: Self.day(20))
                for row in [lapsed, paying] {
                    try db.execute(
                        "INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(api.sign(row)))")
                    api.script(.production, .transactionHistory, id: row.id, [.history([row])])
                }
                try db.execute(
                    """
                    INSERT INTO entitlements (user_id, entitlement, active, expires_at, source)
                    VALUES (\(user), 'premium', true, \(Self.day(20)), 'app_store')
                    """)
            }
            let night = try Self.run(
                database, api, asOf: Self.now,
                ["--max-requests-per-hour", "6", "--budget-hours", "0", "--notifications-since", "1h"])
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect((night.summary["reason"] as? String)?.hasPrefix("budget: ") == true, "\(night.summary)")
            let corrections = try Self.corrections(db)
            #expect(corrections.allSatisfy { !$0.contains(" revoke ") }, "\(corrections)")
            // Every user written was written whole: both of its rows have a result.
            #expect(
                try Self.strings(
                    db, "SELECT user_id || ' ' || count(*)::text AS s FROM recon_results GROUP BY user_id"
                )
                .allSatisfy { $0.hasSuffix(" 2") })
        }
    }

    @Test func twoShardsShareOneBudget() throws {
        try Self.world(24) { database, db, api in
            let environment = api.environment.merging([
                "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example",
            ]) { $1 }
            let shards = try (0..<2).map { index in
                try ReceiptReconBinary.start(
                    [
                        "run", "--backend", "server-api", "--shard", "\(index)/2", "--as-of", Self.text(Self.now),
                        "--max-requests-per-hour", "7", "--budget-hours", "0", "--notifications-since", "1h",
                        "--rate", "50", "--json",
                    ], environment: environment)
            }
            for shard in shards {
                let result = try shard.wait(timeout: 120)
                #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
            }
            // Per endpoint and clock hour, the shards together were granted at most the ceiling, and Apple
            // saw no more requests than were granted.
            let granted = try db.query(
                "SELECT endpoint, window_start, granted FROM recon_request_budget ORDER BY endpoint, window_start")
            var total = 0
            for row in granted {
                let count: Int32 = try row.decode("granted")
                #expect(count <= 7)
                if try row.decode("endpoint", as: String.self) == "transaction_history" { total += Int(count) }
            }
            let history = api.received.filter { $0.endpoint == .transactionHistory }.count
            #expect(history <= total, "Apple saw \(history) history requests, \(total) granted")
            #expect(history > 0)
        }
    }
}
