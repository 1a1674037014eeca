import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import AppStoreSimulator

/// Seeding writes the rows it claims, streaming, in one transaction.
@Suite struct WorldSeederTests {
    static let world = SimulatedWorld(users: 300, seed: 9, asOf: testAsOf)

    static func count(_ connection: PostgresConnection, _ sql: String) throws -> Int {
        try connection.query(PostgresQuery(unsafeSQL: sql))[0].decode(at: 0, as: Int.self)
    }

    @Test func seedingWritesTheWorldsRows() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let summary = try WorldSeeder.seed(Self.world, into: connection)
            let users = TestWorlds.users(Self.world)
            let receiptRows = users.reduce(0) { $0 + $1.user.receipts.count }
            let entitlementRows = users.reduce(0) { $0 + $1.user.entitlements.count }
            let testers = users.filter(\.user.isSandboxTester).count

            #expect(summary.users == 300)
            #expect(summary.receipts == receiptRows)
            #expect(summary.entitlements == entitlementRows)
            #expect(summary.sandboxTesters == testers)
            #expect(summary.products == WorldCatalog.productsTable.count)
            #expect(try Self.count(connection, "SELECT count(*) FROM receipts") == receiptRows)
            #expect(try Self.count(connection, "SELECT count(*) FROM entitlements") == entitlementRows)
            #expect(try Self.count(connection, "SELECT count(*) FROM sandbox_testers") == testers)
            #expect(try Self.count(connection, "SELECT count(*) FROM products") == 5)
            #expect(
                try Self.count(connection, "SELECT count(DISTINCT user_id) FROM receipts")
                    == users.filter { !$0.user.receipts.isEmpty }.count)
            #expect(
                try Self.count(connection, "SELECT count(*) FROM entitlements WHERE source <> 'app_store'")
                    == users.reduce(0) { $0 + $1.user.entitlements.filter { $0.source != "app_store" }.count })
            // Receipt ids are 1...n in world order, and the app's next receipt gets the next id.
            #expect(try Self.count(connection, "SELECT max(id) FROM receipts") == receiptRows)
            let next = try connection.query(
                "INSERT INTO receipts (user_id, receipt_data) VALUES ('new-user', 'x') RETURNING id")
            #expect(try next[0].decode(at: 0, as: Int.self) == receiptRows + 1)
            // The season pass lasts 2160 hours, not "90 days" (see WorldSeeder.productRow).
            let duration = try connection.query(
                "SELECT extract(epoch FROM duration)::bigint FROM products WHERE product_id = \(WorldCatalog.seasonPass.id)"
            )
            #expect(try duration[0].decode(at: 0, as: Int.self) == 90 * 86_400)
            // The expectation is the one derived for the world.
            #expect(summary.expected == ExpectationDeriver.derive(world: Self.world))
        }
    }

    @Test func storedReceiptDataIsTheWorldsAndTheSimulatorKnowsIt() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            _ = try WorldSeeder.seed(Self.world, into: connection)
            let rows = try connection.query("SELECT id, user_id, receipt_data FROM receipts ORDER BY id")
            var expected: [String] = []
            Self.world.forEachUnit { unit in
                for user in unit.users { for row in user.receipts { expected.append(unit.receiptData(row.slot)) } }
            }
            #expect(try rows.map { try $0.decode(at: 2, as: String.self) } == expected)
            let locator = WorldReceiptLocator(world: Self.world)
            let known = try rows.filter { try locator.identify($0.decode(at: 2, as: String.self)) != .malformed }.count
            #expect(known > rows.count * 9 / 10)
        }
    }

    @Test func smallBatchesWriteTheSameDatabase() throws {
        func snapshot(batch: Int) throws -> [String] {
            try TestDatabase.with { database in
                let connection = try database.connect()
                _ = try WorldSeeder.seed(Self.world, into: connection, batchUnits: batch)
                let receipts = try connection.query(
                    "SELECT id || ' ' || user_id || ' ' || md5(receipt_data) || ' ' || created_at FROM receipts ORDER BY id"
                )
                let entitlements = try connection.query(
                    "SELECT user_id || ' ' || entitlement || ' ' || active || ' ' || coalesce(expires_at::text, '-') || ' ' || source FROM entitlements ORDER BY 1"
                )
                return try (receipts.rows + entitlements.rows).map { try $0.decode(at: 0, as: String.self) }
            }
        }
        #expect(try snapshot(batch: 7) == snapshot(batch: 2_000))
    }

    @Test func seedingRefusesADatabaseWithRowsAndLeavesNothingBehind() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            _ = try connection.execute(
                "INSERT INTO entitlements (user_id, entitlement, active) VALUES ('someone', 'premium', true)")
            #expect(throws: WorldSeeder.SeedError.tableNotEmpty("entitlements")) {
                try WorldSeeder.seed(Self.world, into: connection)
            }
            #expect(try Self.count(connection, "SELECT count(*) FROM receipts") == 0)
            #expect(try Self.count(connection, "SELECT count(*) FROM products") == 0)
        }
    }
}
