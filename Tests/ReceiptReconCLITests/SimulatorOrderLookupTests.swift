import Foundation
import Glibc
import Postgres
import TestSupport
import Testing

/// `verify-user --order-id` against `simulator serve` over a seeded world, as an operator rehearses
/// support in staging (docs/simulator.md): an account's order id (`M` and its transaction id in base 36)
/// leads to the user holding it, who is verified.
@Suite struct SimulatorOrderLookupTests {
    static let asOf = "2026-11-22T03:00:00Z"
    static let world = ["--users", "150", "--seed", "4", "--as-of", asOf]

    @Test func anAccountsOrderIDFindsAndVerifiesItsUser() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try TestDatabase.with(migrated: false) { database in
            let seeded = try ReceiptReconBinary.run(
                [
                    "simulator", "seed", "--database-url", database.conninfo, "--pki-dir", directory.path,
                    "--backend", "server-api",
                ] + Self.world)
            #expect(seeded.status == 0, "\(seeded.output)")
            let db = try database.connect()
            // The first production StoreKit 2 row: its transaction id, and the user holding it.
            var holder: (user: String, id: String)?
            for row in try db.query(
                "SELECT user_id, receipt_data FROM receipts WHERE receipt_data LIKE 'eyJ%' ORDER BY id")
            {
                let jws = try row.decode("receipt_data", as: String.self)
                guard
                    let payload = SimulatorServerAPICommandTests.base64URL(
                        decoding: String(jws.split(separator: ".")[1])
                    )
                    .flatMap({ try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }),
                    payload["environment"] as? String == "Production",
                    payload["bundleId"] as? String == "com.example.recon", let id = payload["transactionId"] as? String
                else { continue }
                holder = (try row.decode("user_id", as: String.self), id)
                break
            }
            let (user, id) = try #require(holder, "the world has a production StoreKit 2 row")
            let order = "M" + String(try #require(UInt64(id)), radix: 36, uppercase: true)

            let server = try BackgroundProcess(
                ReceiptReconBinary.url.path,
                ["simulator", "serve", "--port", "0", "--pki-dir", directory.path] + Self.world)
            defer { server.kill() }
            let port = try server.listeningPort(within: .seconds(60))
            let pki = SeededPKI(directory: directory)
            var environment = try pki.serverAPIEnvironment(base: "http://127.0.0.1:\(port)")
            environment["APPLE_ROOT_CERTIFICATES"] = pki.rootCertificate.path
            environment["APPLE_BUNDLE_IDS"] = "com.example.recon"
            environment["DATABASE_URL"] = database.conninfo

            let result = try ReceiptReconBinary.run(
                ["verify-user", "--order-id", order, "--as-of", Self.asOf], environment: environment)
            #expect([0, 1].contains(result.status), "\(result.output)")
            #expect(result.stdout.contains("Order \(order): 1 transaction(s)"), "\(result.stdout)")
            #expect(result.stdout.contains("transaction \(id)"), "\(result.stdout)")
            #expect(result.stdout.contains("Held by 1 user(s): \(user)"), "\(result.stdout)")
            let runs = try db.query("SELECT subject_user_id FROM recon_runs WHERE kind = 'user'").map {
                try $0.decode("subject_user_id", as: String.self)
            }
            #expect(runs == [user])

            server.signal(SIGTERM)
            #expect(try server.exitStatus(within: .seconds(30)) == 0)
        }
    }
}
