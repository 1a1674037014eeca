import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// One instant per judgement (issue 35, point 2; CONTRACT §9 "As of"), through the built binary against
/// a scripted App Store Server API and a real database: an upgrade after `--as-of` has not happened; a
/// live night judges each user when Apple answered about them (the scripted Apple signs its answers two
/// hours after the run starts: a virtual clock for a night longer than an hour); a notification whose
/// change was not acted on stays pending; a future `--as-of` never moves the cursor past the present.
@Suite struct InstantOfJudgementCLITests {
    typealias World = VerdictWorld
    typealias Transaction = ServerAPIScriptTransaction
    static func day(_ offset: Double) -> Date { World.day(offset) }
    static func hours(_ offset: Double) -> Date { World.now.addingTimeInterval(offset * 3600) }

    /// `user`'s monthly period `id` (day -35 to day -5), its row and the app's `premium` row to day -5,
    /// upgraded on `upgraded` to a yearly period `yearlyID` of 365 days, as Apple's history answers: Apple
    /// dates the upgrade on the monthly period (revocationDate beside isUpgraded) and the yearly period
    /// continues the chain from then.
    static func upgradedSubscriber(
        _ db: PostgresConnection, _ api: ScriptedServerAPI, _ user: String, _ id: String, yearly yearlyID: String,
        on upgraded: Date
    ) throws {
        let monthly = Transaction(
            id: id, purchased: day(-35), expires: day(-5), revoked: upgraded, upgraded: true, revocationType: nil)
        let yearly = Transaction(
            id: yearlyID, originalID: id, product: "yearly", purchased: upgraded,
            expires: upgraded.addingTimeInterval(365 * 86_400))
        try World.holder(db, user, api.sign(monthly), "premium", expires: day(-5))
        api.script(.production, .transactionHistory, id: id, [.history([monthly, yearly])])
    }

    /// `run --backend server-api --json` without `--as-of` (a live night) unless `asOf` is given.
    static func run(
        _ database: TestDatabase, _ api: ScriptedServerAPI, asOf: Date? = nil, _ extra: [String] = []
    ) throws -> (result: ReceiptReconBinary.Result, summary: [String: Any]) {
        let asOfArguments = asOf.map { ["--as-of", World.iso($0)] } ?? []
        let result = try ReceiptReconBinary.run(
            ["run", "--backend", "server-api", "--older-than", "0", "--json", "--max-attempts", "2"] + asOfArguments
                + extra,
            environment: api.environment.merging(["DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example"])
            { $1 })
        let summary = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        return (result, summary)
    }

    @Test func anUpgradeAfterAsOfHasNotHappenedAndThePayingSubscriberKeepsAccess() throws {
        try World.seeded { api, database, db in
            let asOf = Self.day(-20)
            // A monthly period running over --as-of, upgraded to the yearly plan five days after it.
            try Self.upgradedSubscriber(db, api, "u-upgraded-later", "20101", yearly: "20102", on: Self.day(-15))
            // The control: upgraded before --as-of, the yearly period carries the access.
            try Self.upgradedSubscriber(db, api, "u-upgraded-before", "20201", yearly: "20202", on: Self.day(-25))

            let (result, _) = try Self.run(database, api, asOf: asOf)
            #expect(result.status == 0, "\(result.output)")
            #expect(try World.corrections(db) == ["u-upgraded-before premium extend renewal"])
            #expect(try World.active(db) == ["u-upgraded-later premium", "u-upgraded-before premium"])
            #expect(World.same(try World.activeUntil(db, "u-upgraded-later", "premium"), Self.day(-5)))
            // Nothing about the upgrade is a refund.
            #expect(try World.flags(db).isEmpty)
        }
    }

    @Test func aLiveNightJudgesAUserAnsweredHoursAfterItsStartWhenAppleAnswered() throws {
        try World.seeded { api, database, db in
            // Apple answers about both users two hours into the night: its answers are signed then.
            let answered = Self.hours(2)
            // Lapsed a day before (auto-renew off): Apple's statuses say expired.
            let lapsed = Transaction(
                id: "30101", purchased: Self.day(-31), expires: Self.day(-1), signed: answered)
            try World.holder(db, "u-lapsed", api.sign(lapsed), "premium", expires: Self.day(-1))
            api.script(.production, .transactionHistory, id: "30101", [.history([lapsed])])
            api.script(
                .production, .subscriptionStatuses, id: "30101",
                [
                    .statuses([
                        ServerAPIScriptStatus(status: 2, transaction: lapsed, autoRenew: false, renewalSigned: answered)
                    ])
                ])
            // Its renewal failed three days ago; it is in its billing grace period for three more days.
            let grace = Transaction(id: "30201", purchased: Self.day(-33), expires: Self.day(-3), signed: answered)
            try World.holder(db, "u-grace", api.sign(grace), "premium", expires: Self.day(-3))
            api.script(.production, .transactionHistory, id: "30201", [.history([grace])])
            api.script(
                .production, .subscriptionStatuses, id: "30201",
                [
                    .statuses([
                        ServerAPIScriptStatus(
                            status: 4, transaction: grace, gracePeriodExpires: Self.day(3), renewalSigned: answered)
                    ])
                ])

            let (result, summary) = try Self.run(database, api)
            #expect(result.status == 0, "\(result.output)")
            #expect(
                try World.corrections(db) == [
                    "u-lapsed premium revoke expired", "u-grace premium extend grace_period",
                ], "\(summary)")
            #expect(World.same(try World.activeUntil(db, "u-grace", "premium"), Self.day(3)))
            let asked = Set(api.receivedAboutPurchases.filter { $0.endpoint == .subscriptionStatuses }.map(\.id))
            #expect(asked == ["30101", "30201"], "\(api.received.map(\.path))")
            // The run records no --as-of: it was live.
            #expect(
                try World.strings(db, "SELECT coalesce(options->>'asOf', 'live') AS s FROM recon_runs") == ["live"])
        }
    }

    @Test func aNotificationWhoseLapseWasNotActedOnStaysPendingUntilANightActsOnIt() throws {
        try World.seeded { api, database, db in
            let expired = Transaction(id: "40101", purchased: Self.hours(-3 - 30 * 24), expires: Self.hours(-3))
            try World.holder(db, "u-expired", api.sign(expired), "premium", expires: Self.hours(-3))
            api.script(.production, .transactionHistory, id: "40101", [.history([expired])])
            api.script(
                .production, .subscriptionStatuses, id: "40101",
                [.statuses([ServerAPIScriptStatus(status: 2, transaction: expired, autoRenew: false)])])
            api.scriptEveryID(
                .production, .notificationHistory,
                [
                    .notifications([
                        ServerAPIScriptNotification(
                            uuid: "n-expired", type: "EXPIRED", subtype: "VOLUNTARY", transaction: expired,
                            signed: Self.hours(-3))
                    ])
                ])
            let pending: PostgresQuery =
                "SELECT user_id || ' ' || (handled_run_id IS NOT NULL)::text AS s FROM recon_notification_users"

            // Judged an hour after the lapse, against answers Apple signs now: its renewal state does not
            // speak for that instant, so the lapse may be a grace period and nothing is revoked.
            let first = try Self.run(database, api, asOf: Self.hours(-2))
            #expect(first.result.status == 0, "\(first.result.output)")
            #expect(try World.corrections(db).isEmpty)
            #expect(try World.strings(db, pending) == ["u-expired false"], "not acted on: still pending")

            // The next night, live, takes the user for its notification and acts on Apple's state.
            let second = try Self.run(database, api)
            #expect(second.result.status == 0, "\(second.result.output)")
            #expect((second.summary["usersByReason"] as? [String: Int])?["notified"] == 1, "\(second.summary)")
            #expect(try World.corrections(db) == ["u-expired premium revoke expired"])
            #expect(try World.strings(db, pending) == ["u-expired true"])
        }
    }

    @Test func aFutureAsOfNeverMovesTheCursorPastThePresent() throws {
        try World.seeded { api, database, db in
            let bought = Transaction(id: "50101", product: "lifetime", type: "Non-Consumable", purchased: Self.day(-9))
            try World.holder(db, "u-pro", api.sign(bought), "pro", expires: nil)
            api.script(.production, .transactionHistory, id: "50101", [.history([bought])])

            let (result, _) = try Self.run(database, api, asOf: Self.day(2))
            #expect(result.status == 0, "\(result.output)")
            let cursor = try #require(
                try db.query("SELECT read_through FROM recon_notification_cursor").first?.decode(
                    "read_through", as: Date.self))
            #expect(cursor <= Date(), "the cursor \(cursor) is past the present")
            let asked = api.received.compactMap(\.notificationSpan)
            #expect(!asked.isEmpty && asked.allSatisfy { $0.upperBound <= Date() }, "\(asked)")
        }
    }
}
