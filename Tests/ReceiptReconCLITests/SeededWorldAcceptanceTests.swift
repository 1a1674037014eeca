import Foundation
import Postgres
import TestSupport
import Testing

/// The job against the simulator's drifted world: what it applies and flags must equal, exactly, the
/// expectation the simulator derived from the same world and docs/reconciliation-rules.md, without
/// the job's code.
@Suite struct SeededWorldAcceptanceTests {
    static let asOf = "2026-11-01T00:00:00Z"

    /// Waits until the simulator listens on `port` (it builds its world first); an issue if it never does.
    static func waitForListening(port: UInt16) {
        #expect(LoopbackSocket.waitUntilListening(port: port), "the simulator did not start listening on port \(port)")
    }

    /// The worlds: receipts only; with StoreKit 2 users, whose rows hold JWS signed by the chain seeding
    /// writes under `--pki-dir` (the run trusts its root); and that world again through the App Store
    /// Server API, the simulator's and the job's (`--backend server-api`, the seeded API key).
    enum World: String, CaseIterable, CustomStringConvertible {
        case receipts, storeKit2, storeKit2ServerAPI
        var description: String { rawValue }
    }

    @Test(arguments: World.allCases)
    func aTwoThousandUserWorldIsCorrectedExactlyAsExpectedThenLeftAlone(world: World) throws {
        let storeKit2 = world != .receipts
        let serverAPI = world == .storeKit2ServerAPI
        try TestDatabase.with { database in
            let expectedFile = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID()).json")
            let pkiDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID())")
            defer {
                try? FileManager.default.removeItem(at: expectedFile)
                try? FileManager.default.removeItem(at: pkiDirectory)
            }
            let pki = storeKit2 ? ["--pki-dir", pkiDirectory.path] : []
            let seeded = try ReceiptReconBinary.run(
                [
                    "simulator", "seed", "--users", "2000", "--seed", "7", "--as-of", Self.asOf, "--expected",
                    expectedFile.path,
                ] + pki + (serverAPI ? ["--backend", "server-api"] : []),
                environment: ["DATABASE_URL": database.conninfo], timeout: 300)
            #expect(seeded.status == 0, "\(seeded.output)")

            // The simulator as staging would run it: its own process, the same world parameters.
            let port = try LoopbackSocket.freePort()
            let serve = try ReceiptReconBinary.start(
                ["simulator", "serve", "--port", String(port), "--users", "2000", "--seed", "7", "--as-of", Self.asOf]
                    + pki)
            defer {
                serve.signal(SIGTERM)
                _ = try? serve.wait(timeout: 30)
            }
            let base = "http://127.0.0.1:\(port)"
            Self.waitForListening(port: port)

            let expected = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: expectedFile)) as? [String: Any])
            let bundleIDs = expected["bundle_ids"] as? [String] ?? []
            let arguments =
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--rate", "2000", "--concurrency", "32"]
                + bundleIDs.flatMap { ["--bundle-id", $0] }
                // The expected file names each app's Apple ID, which a production Server API night needs.
                + (expected["app_apple_ids"] as? [String: Int] ?? [:]).sorted { $0.key < $1.key }.flatMap {
                    ["--app-apple-id", "\($0.key)=\($0.value)"]
                }
                + (storeKit2
                    ? ["--apple-root-certificate", pkiDirectory.appendingPathComponent("apple-root.der").path] : [])
            var environment = [
                "DATABASE_URL": database.conninfo,
                "APPLE_VERIFY_URL_PRODUCTION": base + "/production/verifyReceipt",
                "APPLE_VERIFY_URL_SANDBOX": base + "/sandbox/verifyReceipt",
            ]
            if serverAPI {
                environment.merge(try SeededPKI(directory: pkiDirectory).serverAPIEnvironment(base: base)) { $1 }
            }
            if serverAPI {
                // The migration aid: a dry run with each backend, then `report --compare` lists only users
                // whose rows are StoreKit 2 JWS (the Server API sees what happened since they were signed).
                var verifyReceipt = environment
                verifyReceipt["RECON_BACKEND"] = "verify-receipt"
                let dryA = try ReceiptReconBinary.run(
                    arguments + ["--dry-run"], environment: verifyReceipt, timeout: 600)
                let dryB = try ReceiptReconBinary.run(arguments + ["--dry-run"], environment: environment, timeout: 600)
                #expect([0, 1].contains(dryA.status) && [0, 1].contains(dryB.status), "\(dryA.output)\(dryB.output)")
                let compare = try ReceiptReconBinary.run(
                    ["report", "--compare", "1", "2", "--json"], environment: ["DATABASE_URL": database.conninfo])
                #expect(compare.status == 0, "\(compare.output)")
                let compared = try #require(
                    try JSONSerialization.jsonObject(with: Data(compare.stdout.utf8)) as? [String: Any])
                let differing = Set(
                    (compared["users"] as? [[String: Any]] ?? []).compactMap { $0["userId"] as? String })
                let db = try database.connect()
                let storeKit2Users = Set(
                    try db.query(
                        """
                        SELECT user_id AS u FROM receipts GROUP BY user_id HAVING bool_and(receipt_data LIKE 'eyJ%')
                        """
                    ).map { try $0.decode("u", as: String.self) })
                // And users of an account Apple no longer finds: verifyReceipt's 21010 is `invalid`
                // (CONTRACT §4), the Server API's 4040001 a permanent `unverified` (§9), by contract.
                let permanent = Set(
                    (expected["unverified"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "permanent" }
                        .compactMap { $0["user_id"] as? String })
                #expect(
                    !differing.isEmpty && differing.isSubset(of: storeKit2Users.union(permanent)),
                    "\(differing.subtracting(storeKit2Users.union(permanent)).sorted())")
            }

            let first = try ReceiptReconBinary.run(arguments, environment: environment, timeout: 600)
            #expect([0, 1].contains(first.status), "\(first.output)")

            let corrections = try #require(expected["corrections"] as? [[String: Any]])
            let flags = try #require(expected["flags"] as? [[String: Any]])
            let wantCorrections = Set(
                corrections.map {
                    "\($0["user_id"] as? String ?? "?") \($0["entitlement"] as? String ?? "?") \($0["action"] as? String ?? "?")"
                })
            let wantFlags = Set(flags.map { "\($0["user_id"] as? String ?? "?") \($0["kind"] as? String ?? "?")" })
            #expect(
                Set(["grant", "revoke", "extend", "shorten"])
                    == Set(wantCorrections.map { String($0.split(separator: " ")[2]) }))

            let db = try database.connect()
            let gotCorrections = Set(
                try db.query(
                    """
                    SELECT user_id || ' ' || entitlement || ' ' || action AS c FROM recon_corrections WHERE applied
                    """
                ).map { try $0.decode("c", as: String.self) })
            // The real run's flags (the dry runs before it flag too).
            let firstRun: Int64 = try db.query("SELECT max(id) AS id FROM recon_runs").first!.decode("id")
            let gotFlags = Set(
                try db.query("SELECT user_id || ' ' || kind AS f FROM recon_flags WHERE run_id = \(firstRun)")
                    .map { try $0.decode("f", as: String.self) })
            #expect(
                gotCorrections.subtracting(wantCorrections).isEmpty,
                "extra: \(gotCorrections.subtracting(wantCorrections).sorted().prefix(10))")
            #expect(
                wantCorrections.subtracting(gotCorrections).isEmpty,
                "missing: \(wantCorrections.subtracting(gotCorrections).sorted().prefix(10))")
            #expect(
                gotFlags == wantFlags,
                "extra: \(gotFlags.subtracting(wantFlags).sorted().prefix(10)), missing: \(wantFlags.subtracting(gotFlags).sorted().prefix(10))"
            )

            // Every row Apple gave no verdict on, and whether asking again may change it.
            let wantUnverified = Set(
                (expected["unverified"] as? [[String: Any]] ?? []).map {
                    "\($0["user_id"] as? String ?? "?") \($0["kind"] as? String ?? "?")"
                })
            let gotUnverified = Set(
                try db.query(
                    """
                    SELECT user_id || ' ' || CASE WHEN detail LIKE '%(permanent: %' THEN 'permanent' ELSE 'transient'
                        END AS u
                    FROM recon_results WHERE run_id = \(firstRun) AND outcome = 'unverified'
                    """
                ).map { try $0.decode("u", as: String.self) })
            #expect(gotUnverified == wantUnverified, "\(gotUnverified.symmetricDifference(wantUnverified).sorted())")

            // The StoreKit 2 rows were judged locally: some verified, the tampered ones rejected; under the
            // Server API, a verified one whose id Apple lost is a permanent unverified (issue 35).
            let signedOutcomes = Set(
                try db.query(
                    """
                    SELECT x.outcome AS o FROM recon_results x JOIN receipts r ON r.id = x.receipt_id
                    WHERE r.receipt_data LIKE 'eyJ%' AND x.apple_status IS NULL
                    """
                ).map { try $0.decode("o", as: String.self) })
            let lost: Set<String> = serverAPI ? ["unverified"] : []
            #expect(signedOutcomes == (storeKit2 ? lost.union(["valid", "invalid", "misrouted"]) : []))

            if serverAPI {
                // The refunded amount at customer prices: exactly the simulator's own sum over Apple's refunds.
                let report = try ReceiptReconBinary.run(
                    ["report", "--run", String(firstRun), "--json"], environment: ["DATABASE_URL": database.conninfo])
                let summary = try #require(
                    try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
                let refunded = (summary["refundedAmount"] as? [[String: Any]] ?? []).map {
                    "\($0["currency"] as? String ?? "?") \($0["amount"] as? String ?? "?") \($0["transactions"] as? Int ?? -1)"
                }
                let wantRefunded = (expected["refunded_amount"] as? [[String: Any]] ?? []).map {
                    "\($0["currency"] as? String ?? "?") \($0["amount"] as? String ?? "?") \($0["transactions"] as? Int ?? -1)"
                }
                #expect(!wantRefunded.isEmpty && refunded == wantRefunded, "\(refunded) vs \(wantRefunded)")

                // Finance: every transaction the Server API gave has its price, currency and storefront, in
                // the table and in the export.
                let incomplete: Int = try db.query(
                    """
                    SELECT count(*)::int AS n FROM recon_transactions
                    WHERE source = 'server_api' AND (price IS NULL OR currency IS NULL OR storefront IS NULL)
                    """
                ).first!.decode("n")
                #expect(incomplete == 0)
                let export = try ReceiptReconBinary.run(
                    ["export", "transactions", "--from", "2000-01-01", "--to", "2030-01-01", "--environment", "all"],
                    environment: ["DATABASE_URL": database.conninfo])
                #expect(export.status == 0, "\(export.stderr)")
                let rows = export.stdout.split(separator: "\r\n").map {
                    $0.split(separator: ",", omittingEmptySubsequences: false)
                }
                let header = rows.first.map { $0.map(String.init) } ?? []
                let column = { (name: String) in header.firstIndex(of: name) ?? -1 }
                let serverRows = rows.dropFirst().filter {
                    $0.count == header.count && $0[column("source")] == "server_api"
                }
                #expect(!serverRows.isEmpty)
                #expect(
                    serverRows.allSatisfy {
                        !$0[column("price")].isEmpty && !$0[column("currency")].isEmpty
                            && !$0[column("storefront")].isEmpty
                    })
            }

            let second = try ReceiptReconBinary.run(arguments, environment: environment, timeout: 600)
            #expect([0, 1].contains(second.status), "\(second.output)")
            let secondRun: Int64 = try db.query("SELECT max(id) AS id FROM recon_runs").first!.decode("id")
            #expect(
                try db.query("SELECT count(*) AS n FROM recon_corrections WHERE run_id = \(secondRun)").first!.decode(
                    "n") == 0)
        }
    }
}
