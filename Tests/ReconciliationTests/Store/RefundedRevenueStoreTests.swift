import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// Refunded revenue as runs record it: a refund counts in the run that first recorded it, not
/// again in each later run that sees it, and again only after a reversal.
@Suite struct RefundedRevenueStoreTests {
    static let refundedAt = Date(timeIntervalSince1970: 1_790_000_000)

    static func transaction(_ id: String, milliunits: Int64?, currency: String?, refunded: Bool) -> TransactionRecord {
        TransactionRecord(
            transactionID: id, originalTransactionID: id, productID: "p", receiptID: 1, environment: .production,
            cancelledAt: refunded ? refundedAt : nil, cancellationReason: refunded ? 0 : nil,
            price: milliunits.map(CurrencyAmount.init(milliunits:)), currency: currency,
            revocationType: refunded ? "REFUND_FULL" : nil, source: milliunits == nil ? .verifyReceipt : .signedRow)
    }

    /// Writes one run with `transactions` for one user and returns its figures, as `report --json` shows them.
    static func run(_ connection: PostgresConnection, _ transactions: [TransactionRecord]) throws -> [String] {
        let runID: Int64 = try connection.query(
            "INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'running', false, now()) RETURNING id"
        ).first!.decode("id")
        _ = try UnitWriter(connection: connection).write(
            runID: runID, dryRun: false, verifiedAt: refundedAt,
            units: [UnitWriter.Unit(userID: "u") { _ in UnitPlan(transactions: transactions) }])
        var summary = RunSummary()
        summary.adopt(try RunFinalizer(connection: connection).writtenFigures(runID: runID))
        return summary.refundedRevenue?.map { "\($0.currency) \($0.amount) \($0.transactions)" } ?? ["missing"]
    }

    @Test func eachRefundCountsInTheRunThatFirstRecordedIt() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try connection.execute("INSERT INTO receipts (id, user_id, receipt_data) VALUES (1, 'u', 'x')")
            let first = [
                Self.transaction("A", milliunits: 9_990, currency: "USD", refunded: true),
                Self.transaction("B", milliunits: 9_990, currency: "USD", refunded: true),
                Self.transaction("C", milliunits: 500, currency: "EUR", refunded: false),
                Self.transaction("D", milliunits: nil, currency: nil, refunded: true),
            ]
            #expect(try Self.run(connection, first) == ["USD 19.98 2"])
            // The same refunds seen again, and C refunded now.
            var second = first
            second[2] = Self.transaction("C", milliunits: 500, currency: "EUR", refunded: true)
            #expect(try Self.run(connection, second) == ["EUR 0.5 1"])
            // A's refund reversed, then refunded again: counted again in the run that sees the new refund.
            var third = second
            third[0] = Self.transaction("A", milliunits: 9_990, currency: "USD", refunded: false)
            #expect(try Self.run(connection, third) == [])
            #expect(try Self.run(connection, second) == ["USD 9.99 1"])
            // The stored price is the exact decimal.
            #expect(
                try connection.query("SELECT price::text AS p FROM recon_transactions WHERE transaction_id = 'C'")
                    .first!.decode("p", as: String.self) == "0.5")
        }
    }
}
