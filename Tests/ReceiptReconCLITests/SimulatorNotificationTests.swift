import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Glibc
import Postgres
import TestSupport
import Testing

/// `simulator seed --changed-fraction` and `simulator serve` with the same options, through the built
/// binary: the incremental world's job state (the previous run at `since`, its cursor, users verified in
/// nightly cohorts, Apple's view at `since`), the expectation's incremental figures, and the served
/// notification history read with the job's own client: every record believed, the failed deliveries
/// exactly the missed users', one notification no stored row holds.
@Suite struct SimulatorNotificationTests {
    static let asOf = "2026-11-22T03:00:00Z"
    static let world = [
        "--users", "120", "--seed", "6", "--as-of", asOf, "--changed-fraction", "0.2", "--changed-since", "1d",
        "--missed-fraction", "0.5", "--last-verified-nights", "10",
    ]

    @Test func anIncrementalWorldIsSeededAndItsHistoryServed() throws {
        try Self.withIncrementalWorld { database, directory, json in
            let incremental = try #require(json["incremental"] as? [String: Any])
            let changed = try #require(incremental["changed_users"] as? Int)
            let missed = try #require(incremental["missed_changes"] as? Int)
            #expect(changed >= 8 && missed >= 4 && missed < changed)
            #expect(incremental["unmatched_notifications"] as? Int == 1)
            #expect(incremental["changed_since"] as? String == "2026-11-21T03:00:00Z")
            let run = try #require(json["run"] as? String)
            #expect(!run.contains("--older-than") && run.contains("--backend server-api"), "\(run)")
            let corrected = Set(
                try #require(json["corrections"] as? [[String: Any]]).compactMap { $0["user_id"] as? String })
            #expect(corrected.count == missed)

            // The job's state after the previous run.
            let connection = try database.connect()
            func count(_ sql: String) throws -> Int {
                try connection.query(PostgresQuery(unsafeSQL: sql)).first!.decode(at: 0, as: Int.self)
            }
            #expect(
                try count(
                    "SELECT count(*)::int FROM recon_runs WHERE status = 'completed' AND as_of = '2026-11-21T03:00:00Z'"
                ) == 1)
            // New subscribers' rows (stored since the previous run) have no state: the run's `new`.
            let verifiedUsers = try count("SELECT count(*)::int FROM recon_user_state")
            #expect(verifiedUsers >= 100 && verifiedUsers <= 118)
            #expect(try count("SELECT count(*)::int FROM recon_receipt_state") == verifiedUsers)
            #expect(
                try count(
                    "SELECT count(*)::int FROM receipts r LEFT JOIN recon_receipt_state s ON s.receipt_id = r.id "
                        + "WHERE s.receipt_id IS NULL AND r.created_at > '2026-11-21T03:00:00Z'") == 120 - verifiedUsers
            )
            #expect(
                try count(
                    "SELECT count(DISTINCT date_trunc('day', verified_at))::int FROM recon_user_state "
                        + "WHERE verified_at <= '2026-11-21T03:00:00Z' AND verified_at > '2026-11-11T03:00:00Z'") == 10)
            #expect(try count("SELECT count(*)::int FROM recon_transactions WHERE source <> 'server_api'") == 0)
            #expect(try count("SELECT count(DISTINCT user_id)::int FROM recon_transactions") == verifiedUsers)
            #expect(
                try count(
                    "SELECT count(*)::int FROM recon_notification_cursor WHERE shard_count = 1 AND environment = "
                        + "'production' AND bundle_id = 'com.example.recon' AND read_through = '2026-11-21T03:00:00Z'")
                    == 1)

            // The history since the cursor (with the run's hour of overlap), read as the run will.
            let since = Date(timeIntervalSince1970: 1_795_230_000)  // 2026-11-21T03:00:00Z
            let read = try Self.whileServing(directory) { port in
                try Self.walk(
                    port: port, directory: directory, from: since.addingTimeInterval(-3600),
                    to: since.addingTimeInterval(86_400 + 60))
            }
            guard case .complete(let batch) = read else {
                Issue.record("every page read: \(read)")
                return
            }
            #expect(batch.rejected.isEmpty)
            // Every user's one row is a JWS: its original transaction names the user.
            var holderOf: [String: String] = [:]
            for row in try connection.query("SELECT user_id, receipt_data FROM receipts") {
                let jws = try row.decode("receipt_data", as: String.self)
                let payload = try #require(
                    SimulatorServerAPICommandTests.base64URL(decoding: String(jws.split(separator: ".")[1])).flatMap {
                        try JSONSerialization.jsonObject(with: $0) as? [String: Any]
                    })
                holderOf[try #require(payload["originalTransactionId"] as? String)] = try row.decode(
                    "user_id", as: String.self)
            }
            func holders(_ notifications: [NotificationRecord]) -> Set<String> {
                Set(notifications.compactMap { $0.originalTransactionID.flatMap { holderOf[$0] } })
            }
            let failedUsers = holders(batch.notifications.filter(\.deliveryFailed))
            #expect(failedUsers == corrected, "the app missed exactly the users the run must correct")
            #expect(holders(batch.notifications).count == incremental["notified_users"] as? Int)
            let unmatched = batch.notifications.filter { $0.originalTransactionID.map { holderOf[$0] == nil } ?? false }
            #expect(unmatched.count == 1)
        }
    }

    /// A night on an incremental world (no `--older-than`: the notified users, the new ones and the
    /// sweep's share), and today's full run (`--older-than 0`) alike, correct exactly the expectation's
    /// users (the missed ones: everyone else is Apple-consistent); a full run after either corrects
    /// nothing more, for the notified users or anyone.
    @Test(arguments: [true, false]) func aNightCorrectsTheMissedUsersAndAFullRunAfterItNothing(incremental: Bool)
        throws
    {
        try Self.withIncrementalWorld { database, directory, json in
            let expected = Set(
                try #require(json["corrections"] as? [[String: Any]]).compactMap { correction -> String? in
                    guard let user = correction["user_id"] as? String,
                        let entitlement = correction["entitlement"] as? String,
                        let action = correction["action"] as? String
                    else { return nil }
                    return user + " " + entitlement + " " + action
                })
            #expect(!expected.isEmpty)
            try Self.whileServing(directory) { port in
                let pki = SeededPKI(directory: directory)
                var environment = try pki.serverAPIEnvironment(base: "http://127.0.0.1:\(port)")
                environment["DATABASE_URL"] = database.conninfo
                let arguments = [
                    "run", "--as-of", Self.asOf, "--bundle-id", "com.example.recon", "--json",
                    "--apple-root-certificate", pki.rootCertificate.path,
                ]
                let fullRun = arguments + ["--older-than", "0"]
                let connection = try database.connect()
                func corrections(after run: Int64) throws -> Set<String> {
                    Set(
                        try connection.query(
                            "SELECT user_id || ' ' || entitlement || ' ' || action AS s FROM recon_corrections WHERE run_id > \(run)"
                        ).map { try $0.decode("s", as: String.self) })
                }
                func lastRun() throws -> Int64 {
                    try connection.query("SELECT max(id) AS id FROM recon_runs").first!.decode("id", as: Int64.self)
                }
                let before = try lastRun()
                let first = try ReceiptReconBinary.run(
                    incremental ? arguments : fullRun, environment: environment, timeout: 300)
                #expect([0, 1].contains(first.status), "\(first.output)")
                #expect(try corrections(after: before) == expected)
                if incremental {
                    let summary = try #require(
                        try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
                    let reasons = try #require(summary["usersByReason"] as? [String: Int], "\(summary)")
                    let notified = try #require(
                        (json["incremental"] as? [String: Any])?["notified_users"] as? Int)
                    // A new subscriber's notification names a row the job has never verified: taken as new.
                    #expect(reasons["notified", default: 0] + reasons["new", default: 0] == notified, "\(reasons)")
                    #expect(reasons["notified", default: 0] > 0 && reasons["sweep", default: 0] > 0, "\(reasons)")
                    #expect(reasons["older_than"] == nil, "no --older-than, no users for it: \(reasons)")
                    #expect(try #require(summary["usersProcessed"] as? Int) < 120, "a night is not everyone")
                }
                let afterFirst = try lastRun()
                let second = try ReceiptReconBinary.run(fullRun, environment: environment, timeout: 300)
                #expect([0, 1].contains(second.status), "\(second.output)")
                #expect(
                    try corrections(after: afterFirst).isEmpty, "the world is Apple-consistent after the corrections")
            }
        }
    }

    /// `world` seeded into a throwaway database with its signing chain and key in a temporary
    /// directory, and its expectation; both removed afterwards.
    static func withIncrementalWorld(
        _ body: (_ database: TestDatabase, _ directory: URL, _ expectation: [String: Any]) throws -> Void
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try TestDatabase.with(migrated: false) { database in
            let seeded = try ReceiptReconBinary.run(
                [
                    "simulator", "seed", "--database-url", database.conninfo, "--pki-dir", directory.path,
                    "--backend", "server-api", "--expected", file.path,
                ] + world)
            #expect(seeded.status == 0, "\(seeded.output)")
            try body(
                database, directory,
                try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]))
        }
    }

    /// `simulator serve` of `world` over the seeded `directory` while `body` runs with its port; then
    /// SIGTERM, which it must answer by exiting 0.
    static func whileServing<T>(_ directory: URL, _ body: (_ port: UInt16) throws -> T) throws -> T {
        let server = try BackgroundProcess(
            ReceiptReconBinary.url.path, ["simulator", "serve", "--port", "0", "--pki-dir", directory.path] + world)
        defer { server.kill() }
        let result = try body(try server.listeningPort(within: .seconds(60)))
        server.signal(SIGTERM)
        #expect(try server.exitStatus(within: .seconds(30)) == 0)
        return result
    }

    /// Get Notification History over [start, end) through the job's exchange and driver.
    static func walk(port: UInt16, directory: URL, from start: Date, to end: Date) throws -> NotificationHistoryRead {
        let pki = SeededPKI(directory: directory)
        let tokens = try ServerAPITokens.load(
            keyFile: pki.keyFile.path, keyID: try pki.text("api-key-id"),
            issuerID: try pki.text("api-issuer-id"))
        let root = try X509Certificate(der: Array(try Data(contentsOf: pki.rootCertificate)))
        let driver = ExchangeDriver(
            transport: CurlMultiTransport(maxConnectionsPerHost: 2, timeout: .seconds(30)), rate: 100,
            maxInFlight: 2, tokens: tokens)
        let base = "http://127.0.0.1:\(port)"
        let client = ServerAPIClient(
            configuration: ServerAPIClient.Configuration(
                productionURL: URL(string: base + "/production")!, sandboxURL: URL(string: base + "/sandbox")!),
            verifier: SignedDataVerifier(
                anchors: [TrustAnchor(root)], acceptedBundleIDs: ["com.example.recon"], environment: .production))
        return driver.resultNow(
            of: client.notificationHistory(
                bundleID: "com.example.recon",
                audience: NotificationAudience(
                    acceptedBundleIDs: ["com.example.recon"], appAppleIDs: WorldCatalog.appAppleIDs,
                    environment: .production), from: start, to: end)
        ).result
    }
}
