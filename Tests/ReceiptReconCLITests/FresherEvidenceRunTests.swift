import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// The fresher evidence wins, through the built binary (issue 35, point 3; CONTRACT §9 "Signed rows"):
/// a StoreKit 2 row signed while a refund stood still carries `revocationDate` after Apple reversed the
/// refund; Apple's fresh answer, which no longer has one, decides. The user keeps what they paid for.
@Suite struct FresherEvidenceRunTests {
    static let asOf = StoreKit2RowTests.asOf
    static func day(_ offset: Double) -> Date { StoreKit2RowTests.day(offset) }
    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }
    typealias World = VerdictWorld

    /// verifyReceipt's answer now (`request_date_ms` is `--as-of`) listing lifetime purchase `id`, not
    /// cancelled.
    static func freshAnswer(_ id: String) -> ScriptedAppleServer.Answer {
        let purchase =
            #"{"product_id":"lifetime","transaction_id":"\#(id)","original_transaction_id":"\#(id)","quantity":"1","#
            + #""purchase_date_ms":"\#(ms(day(-90)))","original_purchase_date_ms":"\#(ms(day(-90)))","#
            + #""in_app_ownership_type":"PURCHASED"}"#
        return .http(
            200,
            body: #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example","#
                + #""request_date_ms":"\#(ms(day(0)))","in_app":[\#(purchase)]},"latest_receipt_info":[\#(purchase)]}"#,
            headers: [("Content-Type", "application/json")])
    }

    @Test func verifyReceiptAStaleSignedRefundDoesNotOutliveApplesFreshAnswer() throws {
        let pki = try StoreKit2RowTests.PKI()
        defer { pki.remove() }
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let db = try database.connect()
            try World.seedProducts(db)
            // Refunded four days ago, signed then; Apple reversed the refund since. Either row order.
            for (user, id, staleFirst) in [("u-stale-first", "9001", true), ("u-fresh-first", "9002", false)] {
                let stale = pki.transaction(
                    id: id, product: "lifetime", type: "Non-Consumable", signed: Self.day(-3), purchased: Self.day(-90),
                    revoked: Self.day(-4))
                let receipt = Data("RECEIPT-FRESH-\(id)".utf8).base64EncodedString()
                apple.answer(receipt, with: Self.freshAnswer(id))
                for data in staleFirst ? [stale, receipt] : [receipt, stale] { try World.row(db, user, data) }
                try World.entitlement(db, user, "pro", expires: nil, updated: Self.day(-70))
            }

            let result = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--json"],
                environment: StoreKit2RowTests.environment(database, pki, apple))
            #expect(result.status == 0, "\(result.output)")
            #expect(try World.corrections(db) == [], "Apple says the purchases stand")
            #expect(try World.active(db) == ["u-stale-first pro", "u-fresh-first pro"])
            #expect(try World.flags(db) == [], "no refund to flag: Apple reversed it")
            #expect(try World.revocationPercentage(db, "9001") == "-")
            #expect(try World.revocationPercentage(db, "9002") == "-")
            #expect(World.refundedAmount(try World.summary(result)) == [])
        }
    }

    @Test func serverAPIAStaleSignedRefundDoesNotOutliveApplesFreshTransaction() throws {
        try World.seeded { api, database, db in
            var stale = World.lifetime("9101", purchased: World.day(-90), revoked: World.day(-4))
            stale.signed = World.day(-3)
            try World.holder(db, "u-stale", api.sign(stale), "pro", expires: nil)
            api.script(
                .production, .transactionHistory, id: "9101",
                [.history([World.lifetime("9101", purchased: World.day(-90))])])

            let result = try World.run(database, api)
            #expect(result.status == 0, "\(result.output)")
            #expect(try World.corrections(db) == [])
            #expect(try World.active(db) == ["u-stale pro"])
            #expect(try World.flags(db) == [])
            #expect(World.refundedAmount(try World.summary(result)) == [])
        }
    }
}
