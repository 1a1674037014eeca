import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// `verify-user --order-id`'s search of stored receipts for the users holding an order's transactions:
/// only rows stored since the order's purchase, page after page, and bounded, saying how far it read.
@Suite struct OrderHoldersTests {
    /// Receipts whose data is the one transaction id they name (the test's own reading of a row).
    static func seed(_ connection: PostgresConnection, rows: Int, holderAt holder: Int, storedAt: Date) throws {
        try connection.execute(
            """
            INSERT INTO receipts (user_id, receipt_data, created_at)
            SELECT 'u-' || n, CASE WHEN n = \(holder) THEN 'T-order' ELSE 'T-' || n END, \(storedAt)
            FROM generate_series(1, \(rows)) AS n
            """)
    }

    static func named(_ receipt: StoredReceipt) -> Set<String> { [receipt.data] }

    /// The order's purchase instant.
    static let purchase = Date(timeIntervalSince1970: 1_800_000_000)

    /// The arrange block of every test: a fresh database holding 1,200 receipts stored a minute after
    /// `purchase`, the 1,150th the order's holder, and a connection to it.
    static func seeded<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try seed(connection, rows: 1_200, holderAt: 1_150, storedAt: purchase.addingTimeInterval(60))
            return try body(connection)
        }
    }

    @Test func everyReceiptStoredSinceThePurchaseIsRead() throws {
        try Self.seeded { connection in
            let purchase = Self.purchase
            let holders = try OrderHolders.stored(
                of: ["T-order"], since: purchase, on: connection, limit: 10_000, namedIDs: Self.named)
            #expect(holders.users == ["u-1150"])
            #expect(holders.searched == nil)

            // Rows stored before the purchase cannot hold it, and are not read.
            let later = try OrderHolders.stored(
                of: ["T-order"], since: purchase.addingTimeInterval(3600), on: connection, limit: 10_000,
                namedIDs: Self.named)
            #expect(later.users.isEmpty && later.searched == nil)
        }
    }

    @Test func theSearchStopsAtItsLimitAndSaysHowFarItRead() throws {
        try Self.seeded { connection in
            let purchase = Self.purchase
            let holders = try OrderHolders.stored(
                of: ["T-order"], since: purchase, on: connection, limit: 1_000, namedIDs: Self.named)
            #expect(holders.users.isEmpty)
            let searched = try #require(holders.searched)
            #expect(searched.contains("the first 1000 receipts stored since 2027-01-15T08:00:00Z"), "\(searched)")
        }
    }
}
