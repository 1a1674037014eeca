import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// The refunded amount as runs record it: a refund counts in the run that first recorded it, not
/// again in each later run that sees it, and again only after a reversal; its percentage and
/// environment travel through `recon_transactions` to the figure.
@Suite struct RefundedAmountStoreTests {
    static let refundedAt = Date(timeIntervalSince1970: 1_790_000_000)

    static func transaction(
        _ id: String, milliunits: Int64?, currency: String?, refunded: Bool, type: String? = "REFUND_FULL",
        percent: Int64? = 100_000, environment: AppStoreEnvironment = .production, upgraded: Bool? = nil,
        ownership: String? = nil
    ) -> TransactionRecord {
        TransactionRecord(
            transactionID: id, originalTransactionID: id, productID: "p", receiptID: 1, environment: environment,
            cancelledAt: refunded ? refundedAt : nil, cancellationReason: refunded ? 0 : nil, isUpgraded: upgraded,
            ownershipType: ownership, price: milliunits.map(CurrencyAmount.init(milliunits:)), currency: currency,
            revocationType: refunded ? type : nil,
            revocationPercentage: refunded ? percent.flatMap(Percentage.init(thousandths:)) : nil,
            source: milliunits == nil ? .verifyReceipt : .signedRow)
    }

    /// Writes one run with `transactions` for one user and returns its figures, as `report --json`
    /// shows them. - Parameter environment: the run's `RECON_ENVIRONMENT`, kept in its options.
    static func run(
        _ connection: PostgresConnection, _ transactions: [TransactionRecord],
        environment: AppStoreEnvironment = .production
    ) throws -> [String] {
        let options = PostgresJSON(#"{"environment":"\#(environment.rawValue)"}"#)
        let runID: Int64 = try connection.query(
            """
            INSERT INTO recon_runs (kind, status, dry_run, as_of, options)
            VALUES ('nightly', 'running', false, now(), \(options)) RETURNING id
            """
        ).first!.decode("id")
        _ = try UnitWriter(connection: connection).write(
            runID: runID, dryRun: false, verifiedAt: refundedAt,
            units: [UnitWriter.Unit(userID: "u") { _ in UnitPlan(transactions: transactions) }])
        var summary = RunSummary()
        summary.adopt(try RunFinalizer(connection: connection).writtenFigures(runID: runID))
        return summary.refundedAmount?.map { "\($0.currency) \($0.amount) \($0.transactions)" } ?? ["missing"]
    }

    static func withDatabase(_ body: (PostgresConnection) throws -> Void) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try connection.execute("INSERT INTO receipts (id, user_id, receipt_data) VALUES (1, 'u', 'x')")
            try body(connection)
        }
    }

    @Test func eachRefundCountsInTheRunThatFirstRecordedIt() throws {
        try Self.withDatabase { (connection: PostgresConnection) throws in
            let first = [
                Self.transaction("A", milliunits: 9_990, currency: "USD", refunded: true),
                Self.transaction("B", milliunits: 9_990, currency: "USD", refunded: true),
                Self.transaction("C", milliunits: 500, currency: "EUR", refunded: false),
                Self.transaction("D", milliunits: nil, currency: nil, refunded: true, type: nil),
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

    /// The percentage is stored exactly and multiplies the price; upgrades and family copies never
    /// count; a verifyReceipt-style cancellation (no revocation type, 100) with a price counts.
    @Test func percentagesAndExclusionsReachTheFigureThroughTheTable() throws {
        try Self.withDatabase { (connection: PostgresConnection) throws in
            let figures = try Self.run(
                connection,
                [
                    Self.transaction(
                        "P", milliunits: 9_990, currency: "USD", refunded: true, type: "REFUND_PRORATED",
                        percent: 25_000),
                    Self.transaction(
                        "Q", milliunits: 3_000, currency: "EUR", refunded: true, type: "REFUND_PRORATED",
                        percent: 33_333),
                    Self.transaction("F", milliunits: 9_990, currency: "USD", refunded: true),
                    Self.transaction(
                        "U", milliunits: 9_990, currency: "USD", refunded: true, type: nil, percent: nil, upgraded: true
                    ),
                    Self.transaction(
                        "S", milliunits: 9_990, currency: "USD", refunded: true, type: nil, percent: nil,
                        ownership: "FAMILY_SHARED"),
                    Self.transaction(
                        "R", milliunits: 9_990, currency: "USD", refunded: true, type: "FAMILY_REVOKE", percent: nil),
                    Self.transaction("V", milliunits: 1_990, currency: "USD", refunded: true, type: nil),
                ])
            // 2.4975 + 9.99 + 1.99 = 14.4775 → 14.478; 0.99999 → 1.
            #expect(figures == ["EUR 1 1", "USD 14.478 3"])
            let stored = try connection.query(
                """
                SELECT transaction_id || ' ' || coalesce(revocation_percentage::text, '-') AS s
                FROM recon_transactions ORDER BY transaction_id
                """
            ).map { try $0.decode("s", as: String.self) }
            #expect(stored == ["F 100", "P 25", "Q 33.333", "R -", "S -", "U -", "V 100"])
            // docs/operations.md's query over the table gives the same figure.
            let checked = try connection.query(
                """
                SELECT currency || ' ' || round(sum(price * coalesce(revocation_percentage, 100) / 100), 3)::numeric
                       || ' ' || count(*) AS s
                FROM recon_refund_events
                WHERE run_id = (SELECT max(id) FROM recon_runs) AND kind = 'refund' AND price IS NOT NULL
                  AND environment = 'production'
                  AND (revocation_type IN ('REFUND_FULL', 'REFUND_PRORATED')
                       OR (revocation_type IS NULL AND revocation_percentage IS NOT NULL))
                  AND NOT coalesce(is_upgraded, false) AND coalesce(ownership_type, '') <> 'FAMILY_SHARED'
                GROUP BY currency ORDER BY currency
                """
            ).map { try $0.decode("s", as: String.self) }
            // PostgreSQL keeps the scale: 1.000 and 14.478 where the summary prints 1 and 14.478.
            #expect(checked == ["EUR 1.000 1", "USD 14.478 3"])
        }
    }

    /// Sandbox refunds are never mixed into a production database's figure, and are a sandbox
    /// database's figure (the run's `RECON_ENVIRONMENT`, from its row).
    @Test func onlyTheRunsEnvironmentCounts() throws {
        try Self.withDatabase { (connection: PostgresConnection) throws in
            let refunds = [
                Self.transaction("PROD", milliunits: 4_990, currency: "USD", refunded: true),
                Self.transaction("SBX", milliunits: 9_990, currency: "USD", refunded: true, environment: .sandbox),
            ]
            #expect(try Self.run(connection, refunds) == ["USD 4.99 1"])
            // A sandbox run that records both refunds first (a reversal, then the refund again).
            _ = try Self.run(
                connection,
                refunds.map {
                    Self.transaction(
                        $0.transactionID, milliunits: $0.price?.milliunits, currency: $0.currency, refunded: false,
                        environment: $0.environment!)
                })
            #expect(try Self.run(connection, refunds, environment: .sandbox) == ["USD 9.99 1"])
        }
    }

    /// A run without refunds has an empty list, not a missing one.
    @Test func aRunWithoutRefundsHasAnEmptyList() throws {
        try Self.withDatabase { (connection: PostgresConnection) throws in
            #expect(
                try Self.run(connection, [Self.transaction("A", milliunits: 1, currency: "USD", refunded: false)]) == []
            )
        }
    }
}
