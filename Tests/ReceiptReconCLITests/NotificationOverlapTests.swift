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
}
