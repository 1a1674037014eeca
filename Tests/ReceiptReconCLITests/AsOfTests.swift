import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// A run judged at an `--as-of` twenty days ago against App Store Server API answers signed now (issue
/// 25; CONTRACT §9, "As of"): what happened after `--as-of` did not happen yet, and Apple's subscription
/// statuses (its state now) say nothing about that instant.
@Suite struct AsOfTests {
    typealias World = VerdictWorld
    static func day(_ offset: Double) -> Date { World.day(offset) }
    static let asOf = World.iso(Self.day(-20))

    @Test func aPastAsOfIgnoresLaterPurchasesAndRevocationsAndNeverReadsTodaysStatuses() throws {
        try World.seeded { api, database, db in
            // Bought five days ago, fifteen days after --as-of: nothing to grant at --as-of.
            let laterPurchase = World.lifetime("10101", purchased: Self.day(-5))
            try World.row(db, "u-later-purchase", api.sign(laterPurchase))
            api.script(.production, .transactionHistory, id: "10101", [.history([laterPurchase])])
            // Refunded ten days ago, ten days after --as-of: at --as-of it was paid for.
            try World.holder(
                db, "u-later-refund", api.sign(World.lifetime("10201", purchased: Self.day(-60))), "pro", expires: nil)
            api.script(
                .production, .transactionHistory, id: "10201",
                [.history([World.lifetime("10201", purchased: Self.day(-60), revoked: Self.day(-10))])])
            // Lapsed five days before --as-of: in billing retry, in its grace period, or over? Apple's
            // statuses are its state now, so they cannot tell: no revoke.
            let lapsed = World.monthly("10301", purchased: Self.day(-55), expires: Self.day(-25))
            try World.holder(db, "u-lapsed", api.sign(lapsed), "premium", expires: Self.day(-25))
            api.script(.production, .transactionHistory, id: "10301", [.history([lapsed])])
            api.script(
                .production, .subscriptionStatuses, id: "10301",
                [.statuses([ServerAPIScriptStatus(status: 2, transaction: lapsed, autoRenew: false)])])
            // What --as-of does not hide. Lapsed ninety days before it: expired.
            let longLapsed = World.monthly("10401", purchased: Self.day(-140), expires: Self.day(-110))
            try World.holder(db, "u-long-lapsed", api.sign(longLapsed), "premium", expires: Self.day(-110))
            api.script(.production, .transactionHistory, id: "10401", [.history([longLapsed])])
            // Refunded five days before --as-of: refunded.
            try World.holder(
                db, "u-earlier-refund", api.sign(World.lifetime("10501", purchased: Self.day(-60))), "pro", expires: nil
            )
            api.script(
                .production, .transactionHistory, id: "10501",
                [.history([World.lifetime("10501", purchased: Self.day(-60), revoked: Self.day(-25))])])

            let result = try World.run(database, api, asOf: Self.asOf)
            #expect(result.status == 0, "\(result.output)")
            #expect(try World.strings(db, "SELECT DISTINCT outcome AS s FROM recon_results") == ["valid"])
            let corrections = try World.corrections(db)
            #expect(
                corrections == [
                    "u-long-lapsed premium revoke expired", "u-earlier-refund pro revoke refund",
                ], "\(corrections)")
            #expect(try World.active(db) == ["u-later-refund pro", "u-lapsed premium"])
            #expect(
                api.receivedAboutPurchases.allSatisfy { $0.endpoint == .transactionHistory },
                "\(api.received.map(\.path))")
        }
    }
}
