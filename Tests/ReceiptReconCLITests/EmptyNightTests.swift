import Foundation
import Postgres
import TestSupport
import Testing

/// A night over nothing is not a success (issue 34): `run` over an empty `receipts` while
/// `entitlements` holds active `app_store` rows exits 78 before the run starts (`migrate --check` says
/// so too), and its `--json` object and metrics file say `failed`, 78, with the last success where it
/// was. A new app's empty
/// night and a shard with no users of its own stay normal nights.
@Suite struct EmptyNightTests {
    static func environment(_ database: TestDatabase, _ apple: ScriptedAppleServer) -> [String: String] {
        apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
    }

    @Test func anEmptyReceiptsBesideActiveAppStoreEntitlementsIs78AndNotASuccess() throws {
        let apple = try ScriptedAppleServer()
        let path = MetricsFileTests.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TestDatabase.with { database in
            let db = try database.connect()
            try db.executeScript(
                """
                INSERT INTO entitlements (user_id, entitlement, active, source) VALUES
                    ('u-1', 'premium', true, 'app_store'), ('u-2', 'premium', true, 'app_store'),
                    ('u-3', 'pro', false, 'app_store'), ('u-4', 'premium', true, 'promo');
                """)
            let before = try RunCommandTests.entitlementsDump(db)
            let result = try RunCommandTests.run(database, apple, ["--json", "--metrics-file", path])
            #expect(result.status == 78, "\(result.output)")
            #expect(result.stderr.contains("receipts (public.receipts, a table) is empty"), "\(result.stderr)")
            #expect(result.stderr.contains("2 active app_store rows"), "\(result.stderr)")
            #expect(result.stderr.contains("docs/integration.md#mapping-an-existing-schema-a-walk"))
            let summary = try VerdictWorld.summary(result)
            #expect(summary["status"] as? String == "failed")
            #expect(summary["exitCode"] as? Int == 78)
            let night = try MetricsFileTests.read(path)
            #expect(night.exitCode == 78)
            #expect(night.status == "failed")
            #expect(night.lastSuccess == nil, "a night over nothing is no success")
            #expect(apple.received.isEmpty)
            #expect(try db.query("SELECT count(*) AS n FROM recon_runs").first!.decode("n") == 0)
            #expect(try RunCommandTests.entitlementsDump(db) == before)

            // migrate --check says what a run would refuse.
            let check = try ReceiptReconBinary.run(
                ["migrate", "--check"], environment: ["DATABASE_URL": database.conninfo])
            #expect(check.status == 78, "\(check.output)")
            #expect(check.stdout.contains("problem: receipts: empty, while entitlements holds 2 active app_store rows"))

            // The same with the App Store Server API: the check is the night's, whatever asks Apple.
            let api = try VerdictWorld.server()
            let serverAPI = try VerdictWorld.run(database, api)
            #expect(serverAPI.status == 78, "\(serverAPI.output)")
            #expect(serverAPI.stderr.contains("is empty"), "\(serverAPI.stderr)")
            #expect(api.received.isEmpty)
        }
    }

    /// A new app: nothing bought yet, only other sources' grants and an `app_store` row already off.
    @Test func aNewAppsEmptyNightIsStillANormalNight() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            try database.connect().executeScript(
                """
                INSERT INTO entitlements (user_id, entitlement, active, source) VALUES
                    ('u-1', 'premium', true, 'promo'), ('u-2', 'premium', false, 'app_store');
                """)
            let result = try RunCommandTests.run(database, apple, ["--json"])
            #expect(result.status == 0, "\(result.output)")
            #expect(try VerdictWorld.summary(result)["status"] as? String == "completed")
        }
    }

    /// "Empty" is the whole table's: a shard none of whose users has a receipt, while the other shard's
    /// do, completes as usual.
    @Test func aShardWithNoUsersOfItsOwnIsANormalNight() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let db = try database.connect()
            let data = Data("receipt-only".utf8).base64EncodedString()
            try db.executeScript(
                """
                INSERT INTO products VALUES ('lifetime', 'non_consumable', 'pro', NULL);
                INSERT INTO receipts (user_id, receipt_data) VALUES ('u-only', '\(data)');
                INSERT INTO entitlements (user_id, entitlement, active) VALUES ('u-only', 'pro', true);
                """)
            apple.answer(
                data,
                with: .valid([
                    ScriptedAppleServer.Purchase(
                        product: "lifetime", transactionID: "t1", originalTransactionID: "t1",
                        purchased: RunCommandTests.day(-40))
                ]))
            var selected: [Int] = []
            for shard in ["0/2", "1/2"] {
                let result = try RunCommandTests.run(database, apple, ["--json", "--shard", shard])
                #expect(result.status == 0, "\(shard): \(result.output)")
                selected.append(try VerdictWorld.summary(result)["receiptsSelected"] as? Int ?? -1)
            }
            #expect(selected.sorted() == [0, 1], "one shard holds the user, the other none")
        }
    }
}
