import Foundation
import Postgres
import TestSupport
import Testing

/// `run --shard I/N` (CONTRACT §3): two shards run side by side over one database must do exactly
/// what one full run does over an identical database, and each must keep to its own users.
@Suite struct ShardedRunTests {
    static let asOf = "2026-11-01T00:00:00Z"
    static let world = ["--users", "1200", "--seed", "11", "--as-of", asOf]

    @Test func twoShardsSideBySideApplyExactlyTheCorrectionsOfOneFullRun() throws {
        try TestDatabase.with { whole in
            try TestDatabase.with { sharded in
                let port = try LoopbackSocket.freePort()
                let serve = try ReceiptReconBinary.start(["simulator", "serve", "--port", String(port)] + Self.world)
                defer {
                    serve.signal(SIGTERM)
                    _ = try? serve.wait(timeout: 30)
                }
                let expectedFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "expected-\(UUID()).json")
                defer { try? FileManager.default.removeItem(at: expectedFile) }
                for database in [whole, sharded] {
                    let seeded = try ReceiptReconBinary.run(
                        ["simulator", "seed", "--expected", expectedFile.path] + Self.world,
                        environment: ["DATABASE_URL": database.conninfo], timeout: 300)
                    try #require(seeded.status == 0, "\(seeded.output)")
                }
                SeededWorldAcceptanceTests.waitForListening(port: port)
                let expected = try #require(
                    try JSONSerialization.jsonObject(with: Data(contentsOf: expectedFile)) as? [String: Any])
                let arguments =
                    ["run", "--older-than", "0", "--as-of", Self.asOf, "--rate", "2000", "--concurrency", "16"]
                    + (expected["bundle_ids"] as? [String] ?? []).flatMap { ["--bundle-id", $0] }
                func environment(_ database: TestDatabase) -> [String: String] {
                    [
                        "DATABASE_URL": database.conninfo,
                        "APPLE_VERIFY_URL_PRODUCTION": "http://127.0.0.1:\(port)/production/verifyReceipt",
                        "APPLE_VERIFY_URL_SANDBOX": "http://127.0.0.1:\(port)/sandbox/verifyReceipt",
                    ]
                }

                let full = try ReceiptReconBinary.run(arguments, environment: environment(whole), timeout: 600)
                #expect([0, 1].contains(full.status), "\(full.output)")
                // Both shards at once: each holds its own nightly lock, so neither exits 75.
                let shards = try ["0/2", "1/2"].map {
                    try ReceiptReconBinary.start(arguments + ["--shard", $0], environment: environment(sharded))
                }
                for shard in shards {
                    let result = try shard.wait(timeout: 600)
                    #expect([0, 1].contains(result.status), "\(result.stdoutText)\(result.stderrText)")
                }

                let wholeDB = try whole.connect()
                let shardedDB = try sharded.connect()
                let correction = """
                    SELECT user_id || ' ' || entitlement || ' ' || action || ' ' || reason AS c FROM recon_corrections WHERE applied
                    """
                let wantCorrections = Set(
                    try wholeDB.query(PostgresQuery(unsafeSQL: correction)).map { try $0.decode("c", as: String.self) })
                let gotCorrections = try shardedDB.query(PostgresQuery(unsafeSQL: correction)).map {
                    try $0.decode("c", as: String.self)
                }
                #expect(wantCorrections.count > 100, "the world should need corrections")
                #expect(gotCorrections.count == Set(gotCorrections).count, "a correction was applied twice")
                #expect(
                    Set(gotCorrections).symmetricDifference(wantCorrections).count == 0,
                    "extra: \(Set(gotCorrections).subtracting(wantCorrections).sorted().prefix(5)), missing: \(wantCorrections.subtracting(gotCorrections).sorted().prefix(5))"
                )
                let entitlements =
                    "SELECT md5(string_agg(user_id || entitlement || active || coalesce(expires_at::text, '-'), ',' ORDER BY user_id, entitlement)) AS d FROM entitlements"
                #expect(
                    try wholeDB.query(PostgresQuery(unsafeSQL: entitlements)).first!.decode("d", as: String.self)
                        == shardedDB.query(PostgresQuery(unsafeSQL: entitlements)).first!.decode("d", as: String.self))

                // Each shard's run wrote results and corrections for its own users only, and together
                // they covered every user the full run did.
                let usersByShard = Dictionary(
                    grouping: try shardedDB.query(
                        """
                        SELECT DISTINCT r.shard, x.user_id,
                               (hashtextextended(x.user_id, 0) & 9223372036854775807) % 2 AS hash_shard
                        FROM recon_runs r
                        JOIN (SELECT run_id, user_id FROM recon_results UNION SELECT run_id, user_id FROM recon_corrections) x
                          ON x.run_id = r.id
                        """
                    ).map {
                        (
                            shard: try $0.decode("shard", as: String.self),
                            user: try $0.decode("user_id", as: String.self),
                            hashShard: try $0.decode("hash_shard", as: Int64.self)
                        )
                    }, by: \.shard)
                #expect(Set(usersByShard.keys) == ["0/2", "1/2"])
                for (shard, users) in usersByShard {
                    let strangers = users.filter { "\($0.hashShard)/2" != shard }
                    #expect(
                        strangers.count == 0,
                        "shard \(shard) touched users of the other shard: \(strangers.prefix(3).map(\.user))")
                }
                let shard0 = Set(usersByShard["0/2", default: []].map(\.user))
                let shard1 = Set(usersByShard["1/2", default: []].map(\.user))
                #expect(shard0.intersection(shard1).count == 0)
                #expect(shard0.count > 0 && shard1.count > 0)
                let wholeUsers = Set(
                    try wholeDB.query("SELECT DISTINCT user_id FROM recon_results").map {
                        try $0.decode("user_id", as: String.self)
                    })
                let covered = shard0.union(shard1)
                #expect(
                    covered.symmetricDifference(wholeUsers).count == 0,
                    "users only in the full run: \(wholeUsers.subtracting(covered).sorted().prefix(3)), only in shards: \(covered.subtracting(wholeUsers).sorted().prefix(3))"
                )
            }
        }
    }
}
