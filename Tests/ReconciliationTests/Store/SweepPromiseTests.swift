import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// The sweep's promise over simulated nights (every user re-verified at least every
/// `--sweep-days`): each night fills the run's queue and writes every user it takes through
/// `UnitWriter`, as the run does; also through a full run and a night without a run.
@Suite struct SweepPromiseTests {
    static let users = 300
    static let days = 5
    static let t0 = NotificationStoreTests.t0
    static func night(_ n: Int) -> Date { t0.addingTimeInterval(Double(n) * 86_400) }
    /// Users are written a while after their run starts.
    static let writeDelay: TimeInterval = 600

    static func oldest(_ connection: PostgresConnection) throws -> (user: Date, receipt: Date) {
        let row = try connection.query(
            """
            SELECT (SELECT min(verified_at) FROM recon_user_state) AS u,
                   (SELECT min(last_verified_at) FROM recon_receipt_state) AS r
            """
        ).first!
        return (try row.decode("u"), try row.decode("r"))
    }

    @Test func everyUserIsVerifiedWithinTheSweepDaysEveryNight() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            // Before the first night the users' last verifications are spread over the last D nights.
            for i in 0..<Self.users {
                let user = String(format: "user-%03d", i)
                let verified = Self.t0.addingTimeInterval(-Double(i % Self.days) * 86_400 + Self.writeDelay)
                try RunQueueTests.receipt(connection, user, verified: verified)
                try RunQueueTests.verifiedWhole(connection, user, at: verified)
            }
            let writer = UnitWriter(connection: try database.connect())
            var taken: [Int: Int] = [:]
            for n in 1...12 {
                let start = Self.night(n)
                let before = try Self.oldest(connection)
                #expect(
                    before.user > start.addingTimeInterval(-Double(Self.days) * 86_400),
                    "night \(n): someone waited more than \(Self.days) days")
                if n == 8 { continue }  // no run tonight
                let runID = try NotificationStoreTests.run(connection)
                let queue = RunQueue(
                    connection: try database.connect(), runID: runID, shardIndex: 0, shardCount: 1, limit: nil)
                // Night 4 is a full run (--older-than 0): everyone at once.
                let counts = try queue.fill(asOf: start, sweepDays: Self.days, olderThanCutoff: n == 4 ? start : nil)
                let work = try RunQueueTests.readAll(queue)
                #expect(work.count == counts.total)
                taken[n] = work.count
                for batch in stride(from: 0, to: work.count, by: UnitWriter.maximumBatch) {
                    let units = work[batch..<min(batch + UnitWriter.maximumBatch, work.count)].map { user in
                        UnitWriter.Unit(userID: user.userID, conclusive: true) { _ in
                            UnitPlan(
                                results: user.receipts.map {
                                    ResultRecord(
                                        receiptID: $0.id, outcome: .valid, appleStatus: 0, environment: .production,
                                        attempts: 1, detail: "", bundleID: nil)
                                })
                        }
                    }
                    _ = try writer.write(
                        runID: runID, dryRun: false, verifiedAt: start.addingTimeInterval(Self.writeDelay), units: units
                    )
                }
                try RunFinalizer(connection: connection).flagSharedTransactions(runID: runID)
                let after = try Self.oldest(connection)
                let promise = start.addingTimeInterval(-Double(Self.days - 1) * 86_400)
                #expect(after.user > promise, "night \(n): the oldest user would be overdue tomorrow")
                #expect(after.receipt > promise, "night \(n): a receipt would be overdue tomorrow")
            }
            // A fifth of the users a night; everyone on the full run's night; after the night without a
            // run, the overdue (two nights' share) at once.
            #expect(taken == [1: 60, 2: 60, 3: 60, 4: 300, 5: 60, 6: 60, 7: 60, 9: 120, 10: 60, 11: 60, 12: 60])
        }
    }
}
