import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// `run --json`'s `phaseSeconds` (docs/benchmarks.md, "A night at scale"): where the night's time went.
/// A night that reads Apple's notification history has all five phases; a night that pages its users
/// straight from the tables (verifyReceipt, `--no-notifications`) has no history read and no queue to
/// fill, and says so by leaving those keys out. Every figure is a number of seconds, never negative; no
/// figure is compared with a clock.
@Suite struct PhaseSecondsRunTests {
    static let allPhases: Set = ["historyRead", "queueFill", "verification", "write", "finish"]
    static let pagedPhases: Set = ["verification", "write", "finish"]

    /// The phases of a summary, each checked to be a non-negative number.
    static func phases(_ summary: [String: Any], _ comment: Comment) throws -> Set<String> {
        let phases = try #require(summary["phaseSeconds"] as? [String: Any], comment)
        for (phase, value) in phases {
            let seconds = try #require((value as? NSNumber)?.doubleValue, "\(phase): \(value)")
            #expect(seconds >= 0, "\(phase): \(seconds)")
        }
        return Set(phases.keys)
    }

    @Test func aServerAPINightTellsEachOfItsFivePhases() throws {
        try NotificationNightTests.world(3) { database, _, api in
            let refund = NotificationNightTests.refund(api, 2, hoursAgo: 5, uuid: "n-refund-u02")
            api.scriptEveryID(.production, .notificationHistory, [.notifications([refund])])
            let night = try NotificationNightTests.run(database, api, asOf: NotificationNightTests.now)
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect(try Self.phases(night.summary, "\(night.result.output)") == Self.allPhases)
            // The summary stored in the run's row says the same.
            let stored = try ReceiptReconBinary.run(
                ["report", "--last", "--json"], environment: ["DATABASE_URL": database.conninfo])
            let summary = (try? JSONSerialization.jsonObject(with: Data(stored.stdout.utf8))) as? [String: Any] ?? [:]
            #expect(try Self.phases(summary, "\(stored.output)") == Self.allPhases)
        }
    }

    @Test func aNightWithoutNotificationsHasNoHistoryReadAndNoQueueFill() throws {
        try NotificationNightTests.world(2) { database, _, api in
            let night = try NotificationNightTests.run(
                database, api, asOf: NotificationNightTests.now, ["--no-notifications"])
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect(try Self.phases(night.summary, "\(night.result.output)") == Self.pagedPhases)
        }
    }

    @Test func aVerifyReceiptNightHasNoHistoryReadAndNoQueueFill() throws {
        let world = ["--users", "40", "--seed", "3", "--as-of", "2026-11-01T00:00:00Z"]
        try TestDatabase.with { database in
            let port = try LoopbackSocket.freePort()
            let serve = try ReceiptReconBinary.start(["simulator", "serve", "--port", String(port)] + world)
            defer {
                serve.signal(SIGTERM)
                _ = try? serve.wait(timeout: 30)
            }
            let expectedFile = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: expectedFile) }
            let seeded = try ReceiptReconBinary.run(
                ["simulator", "seed", "--expected", expectedFile.path] + world,
                environment: ["DATABASE_URL": database.conninfo], timeout: 300)
            try #require(seeded.status == 0, "\(seeded.output)")
            SeededWorldAcceptanceTests.waitForListening(port: port)
            let expected = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: expectedFile)) as? [String: Any])
            let night = try ReceiptReconBinary.run(
                // The simulator's small worlds revoke more than the breaker's default share, as seeded.
                ["run", "--older-than", "0", "--as-of", "2026-11-01T00:00:00Z", "--json", "--max-revoke-ratio", "1"]
                    + (expected["bundle_ids"] as? [String] ?? []).flatMap { ["--bundle-id", $0] },
                environment: [
                    "DATABASE_URL": database.conninfo,
                    "APPLE_VERIFY_URL_PRODUCTION": "http://127.0.0.1:\(port)/production/verifyReceipt",
                    "APPLE_VERIFY_URL_SANDBOX": "http://127.0.0.1:\(port)/sandbox/verifyReceipt",
                ], timeout: 300)
            #expect([0, 1].contains(night.status), "\(night.output)")
            let summary = (try? JSONSerialization.jsonObject(with: Data(night.stdout.utf8))) as? [String: Any] ?? [:]
            #expect(summary["backend"] as? String == "verify-receipt")
            #expect(try Self.phases(summary, "\(night.output)") == Self.pagedPhases)
        }
    }
}
