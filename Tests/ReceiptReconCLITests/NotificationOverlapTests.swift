import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// A night driven by notifications asks Apple about its users while the history is still being read
/// (CONTRACT §9): the built binary against a scripted App Store Server API whose history pages are
/// slow. The order is proven by what the server saw, never by a clock: a user's request arrived before
/// the history's last page was asked for.
@Suite struct NotificationOverlapTests {
    typealias Night = NotificationNightTests

    /// Get Transaction History's ids, in the order Apple was asked, after the first `sent` requests.
    static func asked(_ api: ScriptedServerAPI, after sent: Int = 0) -> [String] {
        api.received.dropFirst(sent).filter { $0.endpoint == .transactionHistory }.map(\.id)
    }

    /// Whether some user's request arrived before the history's last page was asked for.
    static func askedUsersDuringTheRead(_ api: ScriptedServerAPI, after sent: Int = 0) -> Bool {
        let received = Array(api.received.dropFirst(sent))
        guard let lastPage = received.lastIndex(where: { $0.endpoint == .notificationHistory }),
            let firstUser = received.firstIndex(where: { $0.endpoint == .transactionHistory })
        else { return false }
        return firstUser < lastPage
    }

    @Test func aFirstNightAsksItsUsersWhileTheHistoryIsReadEachOnce() throws {
        try Night.world(12) { database, db, api in
            // Every piece of two days is slow (eight are read at once: several waves), and names u05,
            // whom the night takes as new anyway (no row of a first night is known to name its purchase
            // yet: the notification is matched after the run).
            let refund = Night.refund(api, 5, hoursAgo: 3, uuid: "n-refund-u05")
            api.scriptEveryID(.production, .notificationHistory, [.delayed(.seconds(1), .notifications([refund]))])
            let night = try Night.run(database, api, asOf: Night.now, ["--notifications-since", "48h"])
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect(Self.askedUsersDuringTheRead(api), "users waited for the whole history")
            #expect(Self.asked(api).sorted() == (1...12).map(Night.transaction), "each user once")
            #expect(Night.reasons(night.summary) == ["new": 12], "\(night.summary)")
            #expect(try Night.corrections(db) == ["u05 revoke refund"])
            #expect(Night.notifications(night.summary)["stored"] as? Int == 1)
        }
    }

    @Test func usersNamedLateInTheReadAreAskedOnceWhereverThePagingIs() throws {
        try Night.world(12) { database, db, api in
            let first = try Night.run(database, api, asOf: Night.hoursAgo(30))
            #expect(first.result.status == 0, "\(first.result.output)")
            // u01 was verified since; the sweep's one user of twelve tonight is u02, verified longest ago.
            try db.execute(
                "UPDATE recon_user_state SET verified_at = verified_at - interval '1 day' WHERE user_id <> 'u01'")

            // The first wave of pieces names nobody; the later ones name u01 (due for nothing else, and
            // behind the paging by then) and u02 (the sweep's, maybe asked already).
            let late = [
                Night.refund(api, 1, hoursAgo: 5, uuid: "n-u01"), Night.refund(api, 2, hoursAgo: 5, uuid: "n-u02"),
            ]
            let slowAndEmpty = ScriptedServerAPI.Answer.delayed(.seconds(1), .notifications([]))
            api.scriptEveryID(
                .production, .notificationHistory,
                Array(repeating: slowAndEmpty, count: 8) + [.delayed(.seconds(1), .notifications(late))])
            let sent = api.received.count
            let second = try Night.run(database, api, asOf: Night.now)
            #expect(second.result.status == 0, "\(second.result.output)")
            #expect(Self.askedUsersDuringTheRead(api, after: sent), "users waited for the whole history")
            #expect(Self.asked(api, after: sent).sorted() == ["1001", "1002"], "each user once")
            #expect(try Night.corrections(db) == ["u01 revoke refund", "u02 revoke refund"])
            let reasons = Night.reasons(second.summary)
            #expect(reasons.values.reduce(0, +) == 2 && (1...2).contains(reasons["notified"] ?? 0), "\(reasons)")
            #expect((second.summary["usersLeftByReason"] as? [String: Int] ?? [:]).isEmpty, "\(second.summary)")
            // u01 was asked only once its notification was stored, and its write handled it.
            let handled = try Night.strings(
                db,
                "SELECT (handled_run_id IS NOT NULL)::text AS s FROM recon_notification_users WHERE user_id = 'u01'"
            )
            #expect(handled == ["true"])
        }
    }

    @Test func aSlowRefusalOfTheConfigurationStillStopsTheRunBeforeAnyUserIsAsked() throws {
        try Night.world(3) { database, db, api in
            api.scriptEveryID(.production, .notificationHistory, [.delayed(.milliseconds(500), .unauthorized)])
            let night = try Night.run(database, api, asOf: Night.now, ["--notifications-since", "24h"])
            #expect(night.result.status == 78, "\(night.result.output)")
            #expect(try Night.corrections(db).isEmpty)
            #expect(api.receivedAboutPurchases.isEmpty, "no user was asked")
        }
    }

    @Test func aNightAsksItsFirstUsersWhileItsQueueIsStillFilled() throws {
        // More users than the fill's first range holds; the last one's row waits on a lock this test holds,
        // so the queue cannot be whole until the test has seen users asked.
        try Night.world(300) { database, db, api in
            let last = try Night.strings(db, "SELECT max(user_id) AS s FROM receipts")[0]
            try db.executeScript(
                """
                CREATE FUNCTION test_hold_last_user() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.user_id = '\(last)' THEN PERFORM pg_advisory_xact_lock_shared(4242); END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER test_hold_last_user BEFORE INSERT ON recon_run_queue
                    FOR EACH ROW EXECUTE FUNCTION test_hold_last_user();
                """)
            try db.execute("SELECT pg_advisory_lock(4242)")
            let job = try ReceiptReconBinary.start(
                ["run", "--backend", "server-api", "--as-of", Night.text(Night.now), "--json", "--max-attempts", "2"],
                environment: api.environment.merging([
                    "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example",
                ]) { $1 })
            // A hang guard only: the order is what the server saw while the last row was held.
            let asked = (0..<1200).contains { _ in
                if !Self.asked(api).isEmpty { return true }
                usleep(100_000)
                return false
            }
            let queuedLast = try Night.strings(
                db, "SELECT count(*)::text AS s FROM recon_run_queue WHERE user_id = \(last)")
            try db.execute("SELECT pg_advisory_unlock(4242)")
            let result = try job.wait(timeout: 300)
            #expect(asked, "no user was asked while the queue was being filled")
            #expect(queuedLast == ["0"], "the last user was queued before the first was asked")
            #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
            #expect(Self.asked(api).sorted() == (1...300).map(Night.transaction).sorted(), "each user once")
            let summary = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any] ?? [:]
            #expect(Night.reasons(summary) == ["new": 300], "\(summary)")
        }
    }

    /// The nightly role holds exactly what `JobPrivileges` grants (docs/integration.md): the read, the
    /// fill and the joins of a night that stores notifications need nothing more.
    @Test func aNightAsTheNightlyRoleStoresNotificationsAndJoinsTheirUsers() throws {
        try Night.world(4) { database, db, api in
            try TestRole.with(in: database) { role in
                try role.grantJobPrivileges(on: db)
                let refund = Night.refund(api, 2, hoursAgo: 3, uuid: "n-refund-u02")
                api.scriptEveryID(.production, .notificationHistory, [.notifications([refund])])
                let result = try ReceiptReconBinary.run(
                    [
                        "run", "--backend", "server-api", "--as-of", Night.text(Night.now), "--json", "--max-attempts",
                        "2",
                    ],
                    environment: api.environment.merging([
                        "DATABASE_URL": role.conninfo, "APPLE_BUNDLE_IDS": "com.example",
                    ]) { $1 })
                #expect(result.status == 0, "\(result.output)")
                #expect(try Night.corrections(db) == ["u02 revoke refund"])
            }
        }
    }
}
