import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// Only Apple's signature keeps access (issue 35, point 1; CONTRACT §5 and §9 "What proves a purchase
/// absent"): under `--backend server-api`, data Apple signed (an app receipt whose PKCS#7 verified to the
/// configured root, a JWS that verified to the configured roots) whose ids Apple cannot find in either
/// environment is a permanent `unverified` that keeps what it names, never `invalid`; data whose
/// signature failed stays `invalid` when Apple cannot find its ids, and keeps nothing when Apple gives
/// no verdict. Through the built binary against a scripted App Store Server API.
@Suite struct AppleSignedAccessTests {
    typealias World = VerdictWorld
    static func day(_ offset: Double) -> Date { World.day(offset) }

    /// Apple's two ways of saying "not here" in an environment.
    static let notHere: [(String, ScriptedServerAPI.Answer)] = [
        ("4040010", .error(4_040_010, status: 404)), ("4040005", .error(4_040_005, status: 404)),
    ]

    /// (a) and (b): a signed app receipt and a signed JWS row whose ids Apple answers "not here" in both
    /// environments keep `pro`, flagged `unverified` (permanent), not `invalid_receipt`; the same
    /// customer's refund is revoked all the same (a permanent `unverified` holds back nothing else); a
    /// forged row of an id Apple cannot find is `invalid`, revoked as before.
    @Test(arguments: notHere)
    func dataAppleSignedThatAppleCannotFindIsPermanentUnverifiedAndKeepsAccess(
        _ named: String, _ notHere: ScriptedServerAPI.Answer
    ) throws {
        try World.seeded { api, database, db in
            // (a) An app receipt signed by the configured chain, naming one lifetime purchase.
            let receiptRow = try World.row(
                db, "u-receipt",
                VerdictsServerAPITests.appReceipt(api, [World.lifetime("35101", purchased: Self.day(-200))]))
            try World.entitlement(db, "u-receipt", "pro", expires: nil)
            // The same customer's subscription, refunded: revoked whatever the receipt's verdict.
            try World.refundedSubscriber(db, api, "u-receipt", "35102", purchased: Self.day(-10), expires: Self.day(20))
            // (b) A JWS row signed by the configured chain.
            let jwsRow = try World.holder(
                db, "u-jws", api.sign(World.lifetime("35201", purchased: Self.day(-200))), "pro", expires: nil)
            // The control: a forged JWS of an id Apple cannot find proves nothing.
            var forgery = World.lifetime("35301", purchased: Self.day(-200))
            forgery.forged = true
            let forgedRow = try World.holder(db, "u-forged", api.sign(forgery), "pro", expires: nil)
            for id in ["35101", "35201", "35301"] {
                for environment in AppStoreEnvironment.allCases {
                    api.script(environment, .transactionHistory, id: id, [notHere])
                }
            }

            let result = try World.run(database, api, ["--max-revoke-ratio", "1"])
            // A permanent unverified is an answer: the night is complete.
            #expect(result.status == 0, "\(named): \(result.output)")
            for row in [receiptRow, jwsRow] {
                let judged = try #require(try World.result(db, row))
                #expect(judged.outcome == "unverified", "\(named): \(judged)")
                #expect(judged.detail.contains("Apple signed the row"), "\(named): \(judged.detail)")
                #expect(
                    judged.detail.contains("permanent") && judged.detail.contains("the entitlements it names are kept")
                        && !judged.detail.contains("transient"), "\(named): \(judged.detail)")
            }
            #expect(try World.outcome(db, forgedRow) == "invalid", "\(named)")
            // Both environments were asked about each id, once each.
            for id in ["35101", "35201", "35301"] { #expect(World.requests(api, id) == 2, "\(named): \(id)") }
            #expect(
                try World.flags(db) == [
                    "u-receipt unverified", "u-receipt refunded", "u-jws unverified", "u-forged invalid_receipt",
                ], "\(named)")
            #expect(
                try World.corrections(db) == [
                    "u-receipt premium revoke refund", "u-forged pro revoke invalid_receipt",
                ], "\(named)")
            #expect(try World.active(db) == ["u-receipt pro", "u-jws pro"], "\(named)")
            let summary = try World.summary(result)
            #expect(summary["permanentlyUnverified"] as? Int == 2, "\(summary)")
        }
    }

    /// A JWS whose chain ends at a root that is not configured is looked up by its id; Apple answering
    /// that the account is gone (4040001, a permanent answer without a verdict) leaves its claims nobody's
    /// word: a permanent `unverified` that keeps nothing, so the entitlement it claims is revoked.
    @Test func aRowOfAnotherRootKeepsNothingWhenAppleGivesNoVerdict() throws {
        let api = try World.server()
        let other = try World.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try World.seedProducts(db)
            let row = try World.holder(
                db, "u-other", other.sign(World.lifetime("35401", purchased: Self.day(-200))), "pro", expires: nil)
            for environment in AppStoreEnvironment.allCases {
                api.script(environment, .transactionHistory, id: "35401", [.error(4_040_001, status: 404)])
            }

            let result = try World.run(database, api, ["--max-revoke-ratio", "1"])
            #expect(result.status == 0, "\(result.output)")
            let judged = try #require(try World.result(db, row))
            #expect(judged.outcome == "unverified", "\(judged)")
            #expect(judged.detail.contains("keeps nothing"), "\(judged.detail)")
            #expect(try World.flags(db) == ["u-other unverified"])
            #expect(try World.corrections(db) == ["u-other pro revoke no_purchase"])
            #expect(try World.active(db).isEmpty)
        }
    }
}
