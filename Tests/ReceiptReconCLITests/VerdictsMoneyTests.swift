import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// Refunds and money through the built binary with `--backend server-api` (issue 25; CONTRACT §9,
/// "Refunds and money"): a prorated refund counts its share, a full one all of it; an upgrade, a family
/// member's copy and a sandbox purchase are never money of a production run, and a family revocation
/// is no refund at all.
@Suite struct VerdictsMoneyTests {
    typealias World = VerdictWorld
    typealias Transaction = ServerAPIScriptTransaction
    static func day(_ offset: Double) -> Date { World.day(offset) }

    @Test func onlyRefundsOfThisEnvironmentCountTheirShareOfTheCustomerPrice() throws {
        try World.seeded { api, database, db in
            // A quarter of USD 9.99 given back.
            let prorated = World.monthly("8101", purchased: Self.day(-20), expires: Self.day(10))
            try World.holder(db, "u-prorated", api.sign(prorated), "premium", expires: Self.day(10))
            api.script(.production, .transactionHistory, id: "8101", [.history([World.quarterRefunded(prorated)])])
            // All of EUR 4.99 given back (Apple sends no percentage with a full refund).
            let full = World.euroLifetime("8201", purchased: Self.day(-100))
            try World.holder(db, "u-full", api.sign(full), "pro", expires: nil)
            api.script(
                .production, .transactionHistory, id: "8201", [.history([World.refunded(full, on: Self.day(-1))])])
            // Upgraded from monthly to yearly five days ago: the monthly period is revoked by the upgrade,
            // not refunded; its money moved to the yearly one.
            let yearly = World.monthly(
                "8302", original: "8301", product: "yearly", purchased: Self.day(-5), expires: Self.day(360))
            try World.holder(db, "u-upgrade", api.sign(yearly), "premium", expires: Self.day(360))
            var upgraded = World.monthly("8301", purchased: Self.day(-20), expires: Self.day(10), revoked: Self.day(-5))
            upgraded.upgraded = true
            api.script(.production, .transactionHistory, id: "8302", [.history([upgraded, yearly])])
            // Family Sharing ended: the member's copy is revoked, nobody was refunded.
            var shared = World.lifetime("8401", purchased: Self.day(-100))
            shared.ownership = "FAMILY_SHARED"
            try World.holder(db, "u-family", api.sign(shared), "pro", expires: nil)
            var familyRevoked = shared
            familyRevoked.revoked = Self.day(-1)
            familyRevoked.revocationType = "FAMILY_REVOKE"
            api.script(.production, .transactionHistory, id: "8401", [.history([familyRevoked])])
            // A sandbox purchase refunded, in a production database (--sandbox-policy flag: it counts for
            // access, never for money).
            let sandbox = World.monthly("8501", purchased: Self.day(-20), expires: Self.day(10))
            try World.holder(db, "u-sandbox", api.sign(sandbox), "premium", expires: Self.day(10))
            api.script(.production, .transactionHistory, id: "8501", [.error(4_040_010, status: 404)])
            api.script(
                .sandbox, .transactionHistory, id: "8501",
                [
                    .history([
                        World.monthly("8501", purchased: Self.day(-20), expires: Self.day(10), revoked: Self.day(-1))
                    ])
                ])

            let result = try World.run(database, api, ["--sandbox-policy", "flag"])
            #expect(result.status == 0, "\(result.output)")
            let summary = try World.summary(result)
            #expect(World.refundedAmount(summary) == ["EUR 4.99 1", "USD 2.498 1"], "\(summary)")

            #expect(
                try World.corrections(db) == [
                    "u-prorated premium revoke refund", "u-full pro revoke refund", "u-family pro revoke family_revoke",
                    "u-sandbox premium revoke refund",
                ])
            let flags = try World.flags(db)
            #expect(
                flags.isSuperset(of: [
                    "u-prorated refunded", "u-full refunded", "u-family family_revoked",
                    "u-sandbox sandbox_in_production",
                ]), "\(flags)")
            #expect(!flags.contains("u-family refunded") && !flags.contains { $0.hasPrefix("u-upgrade ") }, "\(flags)")
            #expect(try World.active(db) == ["u-upgrade premium"])

            #expect(try World.revocationPercentage(db, "8101") == "25")
            #expect(try World.revocationPercentage(db, "8201") == "100")
            #expect(try World.revocationPercentage(db, "8301") == "-", "an upgrade is no refund")
            #expect(try World.revocationPercentage(db, "8401") == "-", "a family revocation is no refund")
        }
    }
}

/// The same money rules over verifyReceipt's answers, which carry no revocation type or percentage: a
/// cancellation that is not an upgrade is a full refund (100), an upgrade's is none (NULL).
@Suite struct VerdictsVerifyReceiptMoneyTests {
    static let asOf = StoreKit2RowTests.asOf
    static func day(_ offset: Double) -> Date { StoreKit2RowTests.day(offset) }
    typealias World = VerdictWorld

    @Test func aCancellationIsAFullRefundUnlessItIsAnUpgrade() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let db = try database.connect()
            try World.seedProducts(db)
            try World.holder(db, "u-vr", "UkVDRUlQVC1NT05FWQ==", "pro", expires: nil, updated: Self.day(-70))
            try World.entitlement(db, "u-vr", "premium", expires: Self.day(360), updated: Self.day(-70))
            apple.answer(
                "UkVDRUlQVC1NT05FWQ==",
                with: .valid([
                    ScriptedAppleServer.Purchase(
                        product: "lifetime", transactionID: "8601", originalTransactionID: "8601",
                        purchased: Self.day(-90), cancelled: Self.day(-2)),
                    ScriptedAppleServer.Purchase(
                        product: "monthly", transactionID: "8701", originalTransactionID: "8701",
                        purchased: Self.day(-20), expires: Self.day(10), cancelled: Self.day(-5), upgraded: true),
                    ScriptedAppleServer.Purchase(
                        product: "yearly", transactionID: "8702", originalTransactionID: "8701",
                        purchased: Self.day(-5), expires: Self.day(360)),
                ]))

            let result = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--json"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect(result.status == 0, "\(result.output)")
            #expect(try World.corrections(db) == ["u-vr pro revoke refund"])
            #expect(try World.flags(db) == ["u-vr refunded"])
            #expect(try World.active(db) == ["u-vr premium"])
            #expect(try World.revocationPercentage(db, "8601") == "100")
            #expect(try World.revocationPercentage(db, "8701") == "-", "an upgrade is no refund")
        }
    }
}
