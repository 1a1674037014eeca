import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// "Safe at any size" (CONTRACT §3, §7) as an operator meets it: the built binary against real
/// PostgreSQL and the scripted Apple servers, on nights smaller than the breaker's window, where the
/// breakers used to be silent.
@Suite struct SmallNightSafetyTests {
    typealias World = VerdictWorld
    static let paying = 46
    static let users = 63

    /// The app's mapping mistake: its `lifetime` plan (what `pro` is bought with) mapped as a consumable,
    /// a valid kind that unlocks nothing, so every paying user looks unpaid (`no_purchase`).
    static func seedMistake(_ db: PostgresConnection) throws {
        try db.execute("INSERT INTO products VALUES ('lifetime', 'consumable', 'pro', NULL)")
    }

    static func user(_ index: Int) -> String { String(format: "user-%02d", index) }

    /// What a user of a small app would see: their entitlements, and what the job wrote.
    static func activePro(_ db: PostgresConnection) throws -> Int {
        try db.query("SELECT count(*) AS n FROM entitlements WHERE active AND entitlement = 'pro'").first!.decode("n")
    }

    static func takeAways(_ db: PostgresConnection) throws -> Int {
        try db.query("SELECT count(*) AS n FROM recon_corrections WHERE action IN ('revoke', 'shorten')").first!
            .decode("n")
    }

    @Test func aMappingMistakeOnASmallServerAPINightRevokesNobody() throws {
        let api = try World.server()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seedMistake(db)
            for index in 0..<Self.users {
                let id = String(3_000_000 + index)
                let purchase = World.lifetime(id, purchased: World.day(-30))
                try World.row(db, Self.user(index), api.sign(purchase))
                api.script(.production, .transactionHistory, id: id, [.history([purchase])])
                if index < Self.paying { try World.entitlement(db, Self.user(index), "pro", expires: nil) }
            }
            let result = try World.run(database, api, ["--no-notifications"])
            #expect(result.status == 69, "\(result.output)")
            #expect(result.stderr.contains("46 of 63 users would be revoked"), "\(result.stderr)")
            #expect(result.stderr.contains("--max-revoke-ratio"))
            #expect(try Self.activePro(db) == Self.paying)
            #expect(try Self.takeAways(db) == 0)
            let summary = try World.summary(result)
            #expect(summary["status"] as? String == "aborted")
        }
    }

    @Test func aMappingMistakeOnASmallVerifyReceiptNightRevokesNobody() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let db = try database.connect()
            try Self.seedMistake(db)
            for index in 0..<Self.users {
                let data = Data("receipt-\(index)".utf8).base64EncodedString()
                try World.row(db, Self.user(index), data)
                apple.answer(
                    data,
                    with: .valid([
                        ScriptedAppleServer.Purchase(
                            product: "lifetime", transactionID: "t\(index)", originalTransactionID: "t\(index)",
                            purchased: World.day(-30))
                    ]))
                if index < Self.paying { try World.entitlement(db, Self.user(index), "pro", expires: nil) }
            }
            let result = try ReceiptReconBinary.run(
                ["run", "--backend", "verify-receipt", "--older-than", "0", "--json"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect(result.status == 69, "\(result.output)")
            #expect(result.stderr.contains("46 of 63 users would be revoked"), "\(result.stderr)")
            #expect(try Self.activePro(db) == Self.paying)
            #expect(try Self.takeAways(db) == 0)
        }
    }

    /// Apple refusing every request on a night of 21 receipts: exit 69, aborted, and the last success the
    /// metrics file carried stays where the last good night put it.
    @Test func aSmallNightAppleRefusesExits69AndLeavesTheLastSuccessAlone() throws {
        let api = try World.server()
        try Self.withMetricsFile { metrics in
            try TestDatabase.with { database in
                let db = try database.connect()
                let ids = try Self.seedPaying(db, api, users: 21, firstID: 4_000_000)
                let good = try World.run(database, api, ["--no-notifications", "--metrics-file", metrics])
                #expect(good.status == 0, "\(good.output)")
                let lastSuccess = try #require(Self.sample(metrics, "receipt_recon_last_success_timestamp_seconds"))

                for id in ids { api.script(.production, .transactionHistory, id: id, [.error(5_000_001, status: 500)]) }
                Thread.sleep(forTimeInterval: 1.1)
                let outage = try World.run(database, api, ["--no-notifications", "--metrics-file", metrics])
                #expect(outage.status == 69, "\(outage.output)")
                #expect(
                    outage.stderr.contains("Apple unreachable or refusing: 21 of 21 receipts"), "\(outage.stderr)")
                #expect(try World.summary(outage)["status"] as? String == "aborted")
                #expect(Self.sample(metrics, "receipt_recon_last_success_timestamp_seconds") == lastSuccess)
                #expect(Self.sample(metrics, "receipt_recon_last_run_exit_code") == "69")
                #expect(try Self.activePro(db) == 21)
            }
        }
    }

    /// Deleted Apple accounts (4040001 in both environments) are Apple's answer: flagged, counted apart,
    /// and the night exits 0, every night they come back.
    @Test func permanentlyUnverifiedReceiptsAloneExit0() throws {
        let api = try World.server()
        try Self.withMetricsFile { metrics in
            try TestDatabase.with { database in
                let db = try database.connect()
                // Apple no longer finds the accounts of the first three, in either environment.
                for id in try Self.seedPaying(db, api, users: 12, firstID: 5_000_000).prefix(3) {
                    api.script(.production, .transactionHistory, id: id, [.error(4_040_001, status: 404)])
                    api.script(.sandbox, .transactionHistory, id: id, [.error(4_040_001, status: 404)])
                }
                for night in 0..<2 {
                    let result = try World.run(database, api, ["--no-notifications", "--metrics-file", metrics])
                    #expect(result.status == 0, "night \(night): \(result.output)")
                    let summary = try World.summary(result)
                    #expect(summary["status"] as? String == "completed")
                    #expect(summary["permanentlyUnverified"] as? Int == 3)
                    #expect(summary["newlyPermanentlyUnverified"] as? Int == (night == 0 ? 3 : 0))
                    #expect(
                        Self.sample(metrics, #"receipt_recon_last_run_unverified_receipts{"#, label: "permanent") == "3"
                    )
                    #expect(
                        Self.sample(metrics, #"receipt_recon_last_run_unverified_receipts{"#, label: "transient") == "0"
                    )
                }
                #expect(try World.flags(db).filter { $0.hasSuffix(" unverified") }.count == 3)
            }
        }
    }

    /// `users` paying users of `pro` (the lifetime product), each with one JWS row whose transaction id is
    /// `firstID + index`; Apple answers each with its purchase. - Returns: the transaction ids.
    @discardableResult
    static func seedPaying(
        _ db: PostgresConnection, _ api: ScriptedServerAPI, users: Int, firstID: Int
    ) throws -> [String] {
        try db.execute("INSERT INTO products VALUES ('lifetime', 'non_consumable', 'pro', NULL)")
        return try (0..<users).map { index in
            let id = String(firstID + index)
            let purchase = World.lifetime(id, purchased: World.day(-30))
            try World.row(db, Self.user(index), api.sign(purchase))
            api.script(.production, .transactionHistory, id: id, [.history([purchase])])
            try World.entitlement(db, Self.user(index), "pro", expires: nil)
            return id
        }
    }

    /// A metrics file's path in a directory of its own, removed after `body`.
    static func withMetricsFile(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("recon.prom").path)
    }

    /// The value of a metrics file's sample `name` (with `label` in its labels, when given).
    static func sample(_ path: String, _ name: String, label: String? = nil) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { line in
            line.hasPrefix(name) && (label.map { line.contains("\"\($0)\"") } ?? true)
        }
        return line?.split(separator: " ").last.map(String.init)
    }
}
