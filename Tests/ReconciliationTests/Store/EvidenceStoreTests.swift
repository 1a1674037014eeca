import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// `recon_corrections.evidence` and `recon_flags.evidence` as stored and read back (CONTRACT §6,
/// "Evidence"): snake_case keys, ISO 8601 UTC instants with Apple's milliseconds, absent facts left out,
/// hostile text intact; the end-of-run flags' evidence, written in SQL, reads back the same way.
@Suite struct EvidenceStoreTests {
    static let hostile = #"q " b \ c , {x} 日本 👍 line"# + "\nbreak"

    static var evidence: Evidence {
        var purchase = Evidence.PurchaseFact(source: .serverAPI)
        purchase.receiptID = 12
        purchase.transactionID = "2000000123"
        purchase.originalTransactionID = "2000000100"
        purchase.productID = hostile
        purchase.environment = .production
        purchase.purchaseDate = Date(timeIntervalSince1970: 1_790_000_000)
        purchase.expiresDate = Date(timeIntervalSince1970: 1_792_000_000.123)
        purchase.revocationDate = Date(timeIntervalSince1970: 1_791_000_000.5)
        purchase.revocationReason = 1
        purchase.revocationType = "REFUND_PRORATED"
        purchase.revocationPercentage = Percentage(thousandths: 33_333)
        purchase.isUpgraded = false
        purchase.ownership = "PURCHASED"
        purchase.reportedAt = Date(timeIntervalSince1970: 1_791_500_000)
        var receipt = Evidence.ReceiptFact(receiptID: 12, outcome: .invalid, source: .verifyReceipt)
        receipt.appleStatus = 21_003
        receipt.errorCode = 4_000_006
        receipt.unverified = nil
        receipt.detail = hostile
        receipt.productIDs = ["a", hostile]
        var evidence = Evidence(rule: "refund", asOf: Date(timeIntervalSince1970: 1_791_600_000), entitlement: hostile)
        evidence.purchases = [purchase]
        evidence.receipts = [receipt]
        evidence.gracePeriodExpiresDate = Date(timeIntervalSince1970: 1_792_100_000)
        evidence.previouslyRefunded = true
        evidence.productIDs = [hostile]
        return evidence
    }

    @Test func aWrittenEvidenceReadsBackWhole() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let (runID, receipts) = try UnitWriterTests.prepare(connection, dryRun: false)
            var users = UnitWriterTests.world(receipts: receipts)
            users[1].plan.corrections[0].evidence = Self.evidence
            users[1].plan.flags[0].evidence = Self.evidence
            #expect(try UnitWriterTests.write(connection, runID: runID, dryRun: false, users: users) == 3)

            let history = try UserHistory.load(userID: users[1].userID, on: connection)
            #expect(history.corrections.count == 1 && history.flags.count == 1 && history.lastRunID == runID)
            #expect(history.corrections.first?.record.evidence == Self.evidence)
            #expect(history.flags.first?.evidence == Self.evidence)

            let stored = try #require(
                try connection.query(
                    "SELECT evidence::text AS e FROM recon_corrections WHERE user_id = \(users[1].userID)"
                )
                .first?.decode("e", as: String.self))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any])
            #expect(object["as_of"] as? String == "2026-10-10T02:40:00Z")
            let purchase = try #require((object["purchases"] as? [[String: Any]])?.first)
            #expect(purchase["expires_date"] as? String == "2026-10-14T17:46:40.123Z")
            #expect(purchase["revocation_percentage"] as? Double == 33.333)
            #expect(
                purchase["source"] as? String == "server_api" && purchase["transaction_id"] as? String == "2000000123")
            let receipt = try #require((object["receipts"] as? [[String: Any]])?.first)
            #expect(receipt["apple_status"] as? Int == 21_003 && receipt["error_code"] as? Int == 4_000_006)
            #expect(receipt["unverified"] == nil, "absent facts are left out")

            // A plan without evidence (built by hand) writes NULL, and reads back as none.
            let other = try UserHistory.load(userID: users[0].userID, on: connection)
            #expect(other.corrections.first.map { $0.record.evidence == nil } == true)
        }
    }

    /// The flags `RunFinalizer` writes in SQL carry evidence `Evidence` reads: the entitlement rows of a
    /// user without receipts, the other user holding an original transaction.
    @Test func theEndOfRunFlagsCarryEvidenceToo() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID: Int64 = try connection.query(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of)
                VALUES ('nightly', 'running', false, '2026-11-28T10:00:00.250Z') RETURNING id
                """
            ).first!.decode("id")
            try connection.execute(
                """
                INSERT INTO entitlements (user_id, entitlement, active, expires_at, product_id, source, updated_at)
                VALUES ('u-none', 'premium', true, '2026-12-01T00:00:00Z', 'monthly', 'app_store', '2026-11-01T08:00:00Z')
                """)
            let finalizer = RunFinalizer(connection: connection)
            #expect(
                try finalizer.flagEntitlementsWithoutReceipt(runID: runID, shardIndex: 0, shardCount: 1, userID: nil)
                    == 1)
            try connection.execute(
                """
                INSERT INTO recon_run_transactions (run_id, user_id, receipt_id, original_transaction_id)
                VALUES (\(runID), 'u-a', 1, '900'), (\(runID), 'u-b', 2, '900'), (\(runID), 'u-c', 3, '901'),
                       (\(runID), 'u-e', 5, '902')
                """)
            // Earlier runs' rows: 901 is another user's (u-c's receipt shares it), 902 is u-e's own.
            try connection.execute(
                """
                INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id)
                VALUES ('901', '901', 'monthly', 'u-d'), ('902', '902', 'monthly', 'u-e')
                """)
            #expect(try finalizer.flagSharedTransactions(runID: runID) == 3)

            let none = try UserHistory.load(userID: "u-none", on: connection)
            let rows = try #require(none.flags.first?.evidence)
            #expect(rows.rule == "entitlement_without_receipt")
            #expect(rows.asOf == Date(timeIntervalSince1970: 1_795_860_000.25))
            #expect(rows.entitlementRows.map(\.entitlement) == ["premium"])
            #expect(rows.entitlementRows.first?.expiresAt == Date(timeIntervalSince1970: 1_796_083_200))
            #expect(rows.entitlementRows.first?.productID == "monthly")
            #expect(rows.entitlementRows.first?.updatedAt == Date(timeIntervalSince1970: 1_793_520_000))
            let shared = try #require(try UserHistory.load(userID: "u-a", on: connection).flags.first?.evidence)
            #expect(shared.rule == "shared_transaction" && shared.originalTransactionID == "900")
            #expect(shared.otherUsers == ["u-b"])
            let earlier = try #require(try UserHistory.load(userID: "u-c", on: connection).flags.first?.evidence)
            #expect(earlier.originalTransactionID == "901" && earlier.otherUsers == ["u-d"])
            #expect(try UserHistory.load(userID: "u-e", on: connection).flags.isEmpty, "its own earlier row")
        }
    }
}
