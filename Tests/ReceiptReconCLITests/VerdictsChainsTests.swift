import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// Two subscription chains of one entitlement (`monthly` and `yearly` both unlock `premium`), through
/// the built binary with `--backend server-api` (issue 25; CONTRACT §9, "As of"): the entitlement is
/// active while any chain is active or in its billing grace period, until the latest end of those
/// chains, a grace end counting as its chain's end (`grace_period`).
@Suite struct VerdictsChainsTests {
    typealias World = VerdictWorld
    typealias Transaction = ServerAPIScriptTransaction
    static func day(_ offset: Double) -> Date { World.day(offset) }

    /// One user's two chains, stored as one signed row each, the older chain first; Apple's history
    /// holds both, and its statuses give each chain's state now.
    static func seedChains(
        _ db: PostgresConnection, _ api: ScriptedServerAPI, user: String, ids: (String, String),
        yearly: (purchased: Date, expires: Date, status: Int),
        monthly: (purchased: Date, expires: Date, status: Int, grace: Date?)
    ) throws {
        let chainA = World.monthly(ids.0, product: "yearly", purchased: yearly.purchased, expires: yearly.expires)
        let chainB = World.monthly(ids.1, purchased: monthly.purchased, expires: monthly.expires)
        try World.row(db, user, api.sign(chainA))
        try World.row(db, user, api.sign(chainB))
        let statuses = ScriptedServerAPI.Answer.statuses([
            ServerAPIScriptStatus(status: yearly.status, transaction: chainA, autoRenew: yearly.status == 1),
            ServerAPIScriptStatus(status: monthly.status, transaction: chainB, gracePeriodExpires: monthly.grace),
        ])
        for id in [ids.0, ids.1] {
            api.script(.production, .transactionHistory, id: id, [.history([chainA, chainB])])
            api.script(.production, .subscriptionStatuses, id: id, [statuses])
        }
    }

    @Test func aChainInItsGracePeriodEntitlesWhateverTheOtherChainDid() throws {
        try World.seeded { api, database, db in
            // Chain A expired long ago; chain B lapsed three days ago, in its grace period for ten more.
            try Self.seedChains(
                db, api, user: "u-old-and-grace", ids: ("9101", "9102"),
                yearly: (purchased: Self.day(-465), expires: Self.day(-100), status: 2),
                monthly: (purchased: Self.day(-33), expires: Self.day(-3), status: 4, grace: Self.day(10)))
            try World.entitlement(db, "u-old-and-grace", "premium", expires: Self.day(-3))
            // Chain A expired yesterday (later than chain B, and for good); chain B is in its grace period.
            try Self.seedChains(
                db, api, user: "u-recent-and-grace", ids: ("9201", "9202"),
                yearly: (purchased: Self.day(-366), expires: Self.day(-1), status: 2),
                monthly: (purchased: Self.day(-33), expires: Self.day(-3), status: 4, grace: Self.day(10)))
            try World.entitlement(db, "u-recent-and-grace", "premium", expires: Self.day(-1))
            // Chain A active for five more days; chain B in its grace period for twelve.
            try Self.seedChains(
                db, api, user: "u-active-and-grace", ids: ("9301", "9302"),
                yearly: (purchased: Self.day(-360), expires: Self.day(5), status: 1),
                monthly: (purchased: Self.day(-33), expires: Self.day(-3), status: 4, grace: Self.day(12)))
            try World.entitlement(db, "u-active-and-grace", "premium", expires: Self.day(5))

            let result = try World.run(database, api)
            #expect(result.status == 0, "\(result.output)")
            #expect(
                try World.strings(db, "SELECT DISTINCT outcome AS s FROM recon_results") == ["valid"])
            let corrections = try World.corrections(db)
            #expect(
                corrections == [
                    "u-old-and-grace premium extend grace_period", "u-recent-and-grace premium extend grace_period",
                    "u-active-and-grace premium extend grace_period",
                ], "\(corrections)")
            #expect(World.same(try World.activeUntil(db, "u-old-and-grace", "premium"), Self.day(10)))
            #expect(World.same(try World.activeUntil(db, "u-recent-and-grace", "premium"), Self.day(10)))
            #expect(World.same(try World.activeUntil(db, "u-active-and-grace", "premium"), Self.day(12)))
            #expect(!api.received.filter { $0.endpoint == .subscriptionStatuses }.isEmpty)
        }
    }
}
