import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// `export refunds` over what a night recorded itself (server-api, scripted Apple): a refund of a purchase
/// made weeks earlier is in the export of the day it happened, with the night that recorded it and the
/// amount its summary counted; the `transactions` export of that day, by purchase date, has none of it.
@Suite struct ExportRefundsNightTests {
    typealias World = VerdictWorld

    @Test func aNightsRefundOfAnEarlierPurchaseIsFoundByTheDayItHappened() throws {
        try World.seeded { api, database, db in
            let lifetime = World.euroLifetime("2000000123456789", purchased: World.day(-45))
            try World.holder(db, "u-refunded", api.sign(lifetime), "pro", expires: nil)
            api.script(
                .production, .transactionHistory, id: "2000000123456789",
                [.history([World.refunded(lifetime, on: World.day(-2))])]
            )
            let night = try World.run(database, api)
            #expect(night.status == 0, "\(night.output)")
            let runID = try #require(try World.summary(night)["runID"] as? Int)

            let day = ISO8601DateFormatter()
            day.formatOptions = [.withFullDate]
            let range = ["--from", day.string(from: World.day(-2)), "--to", day.string(from: World.day(-1))]
            let environment = ["DATABASE_URL": database.conninfo]
            let transactions = try ReceiptReconBinary.run(["export", "transactions"] + range, environment: environment)
            #expect(transactions.status == 0, "\(transactions.output)")
            #expect(!transactions.stdout.contains("2000000123456789"))

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "refunds-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("refunds.csv").path
            let refunds = try ReceiptReconBinary.run(
                ["export", "refunds", "--output", path] + range, environment: environment)
            #expect(refunds.status == 0, "\(refunds.output)")
            let rows = try ExportWorkbookTests.readCSV(path)
            #expect(rows.count == 1)
            #expect(rows.first?["transaction_id"] == "2000000123456789")
            #expect(rows.first?["user_id"] == "u-refunded")
            #expect(rows.first?["purchased_at"] == World.iso(World.day(-45)))
            #expect(rows.first?["cancelled_at"] == World.iso(World.day(-2)))
            #expect(rows.first?["refund_run_id"] == String(runID))
            #expect(rows.first?["refund_recorded_at"]?.isEmpty == false)
            #expect(rows.first?["refunded_amount"] == "4.99")
            #expect(World.refundedAmount(try World.summary(night)) == ["EUR 4.99 1"])
        }
    }
}
