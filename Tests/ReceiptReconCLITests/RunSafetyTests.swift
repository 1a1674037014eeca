import Foundation
import Postgres
import TestSupport
import Testing

/// SIGINT/SIGTERM against a scripted loopback Apple (CONTRACT §6). kill -9, concurrent runs, support
/// beside the nightly run and the rate limit are checked against the simulator in SimulatorRunTests.
@Suite struct RunSafetyTests {
    static let asOf = "2026-11-01T00:00:00Z"
    static let users = 200

    /// 200 users, each with one receipt: a third bought and never granted (grant), one in ten refunded
    /// but still active (revoke), the rest in agreement. Apple answers after `delay`.
    static func seed(_ database: TestDatabase, _ apple: ScriptedAppleServer, delay: Duration) throws {
        let db = try database.connect()
        try db.execute("INSERT INTO products VALUES ('lifetime', 'non_consumable', 'pro', NULL)")
        var receipts: [[any PostgresEncodable]] = []
        var entitlements: [[any PostgresEncodable]] = []
        let purchased = ISO8601DateFormatter().date(from: "2026-09-01T00:00:00Z")!
        for index in 0..<users {
            let user = String(format: "user-%03d", index)
            let data = Data("receipt-\(index)".utf8).base64EncodedString()
            receipts.append([user, data])
            let refunded = index % 10 == 0
            apple.answer(
                data,
                with: .delayed(
                    delay,
                    .valid([
                        ScriptedAppleServer.Purchase(
                            product: "lifetime", transactionID: "t\(index)", originalTransactionID: "t\(index)",
                            purchased: purchased,
                            cancelled: refunded ? purchased.addingTimeInterval(86_400) : nil)
                    ])))
            if refunded || index % 3 != 0 { entitlements.append([user, "pro", true]) }
        }
        try db.copy(into: "receipts", columns: ["user_id", "receipt_data"], rows: receipts)
        try db.copy(into: "entitlements", columns: ["user_id", "entitlement", "active"], rows: entitlements)
    }

    static func environment(_ database: TestDatabase, _ apple: ScriptedAppleServer) -> [String: String] {
        apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 }
    }

    static let runArguments = [
        "run", "--older-than", "0", "--as-of", asOf, "--rate", "1000", "--concurrency", "8",
        "--max-attempts", "1",
    ]

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalDrainsInFlightWorkAndExits75(signal: Int32) throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            try Self.seed(database, apple, delay: .milliseconds(100))
            let environment = Self.environment(database, apple).merging(["APPLE_SHARED_SECRET": "0123-shared-secret"]) {
                $1
            }
            let run = try ReceiptReconBinary.start(Self.runArguments, environment: environment)
            Thread.sleep(forTimeInterval: 1.8)
            run.signal(signal)
            let result = try run.wait(timeout: 60)
            #expect(result.status == 75, "\(result.stderrText)")
            let db = try database.connect()
            let row = try db.query("SELECT status, abort_reason FROM recon_runs").first!
            #expect(try row.decode("status") == "interrupted")
            #expect(
                try row.decode("abort_reason", as: String?.self)?.contains(signal == SIGTERM ? "SIGTERM" : "SIGINT")
                    == true)
            // Every user it wrote is whole: a result for each receipt and the user's corrections with it.
            let written: Int = try db.query("SELECT count(*) AS n FROM recon_results").first!.decode("n")
            let states: Int = try db.query("SELECT count(*) AS n FROM recon_receipt_state").first!.decode("n")
            #expect(written == states)
            #expect(written < Self.users)
            // Logs and summary never carry the secret or receipt data.
            let output = result.stdoutText + result.stderrText
            #expect(!output.contains("0123-shared-secret"))
            #expect(!output.contains(Data("receipt-1".utf8).base64EncodedString()))
        }
    }
}
