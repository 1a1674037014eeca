import AppStoreReceipts
import AppStoreSimulator
import CommandLineOptions
import Foundation
import Reconciliation
import Testing

@testable import ReceiptReconCLI

/// The one resolved value of a run's settings: what the engine acts on, what a server-api night records
/// and what the demo records are all read from it.
@Suite struct RunSettingsTests {
    static func settings(_ arguments: [String], _ environment: [String: String] = [:]) throws -> RunSettings {
        try RunSettings(try RunCommand.spec.parse(arguments), environment: environment)
    }

    static func json(_ request: RunRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(request), as: UTF8.self)
    }

    static let asOf = Date(timeIntervalSince1970: 1_795_000_000)

    @Test func theEngineGetsEveryValueItReads() throws {
        let settings = try Self.settings(
            [
                "--as-of", "2026-11-22", "--dry-run", "--concurrency", "3", "--older-than", "7d", "--limit", "50",
                "--shard", "1/3", "--sandbox-policy", "flag", "--max-unverified-ratio", "0.3",
                "--max-revoke-ratio", "0.05", "--db-reconnect-window", "0",
            ])
        var expected = RunOptions(
            asOf: Date(timeIntervalSince1970: 1_795_305_600), startedAt: settings.startedAt)
        expected.dryRun = true
        expected.concurrency = 3
        expected.olderThan = 604_800
        expected.limit = 50
        (expected.shardIndex, expected.shardCount) = (1, 3)
        expected.sandboxPolicy = .flag
        expected.maxUnverifiedRatio = 0.3
        expected.maxRevokeRatio = 0.05
        expected.reconnectWindow = 0
        expected.environment = .sandbox
        #expect(settings.runOptions(environment: .sandbox, backend: .verifyReceipt) == expected)
    }

    /// Without flags the engine's options are `RunOptions.defaults`, at the instant the settings were read.
    @Test func theDefaultsAreTheEnginesDefaults() throws {
        let settings = try Self.settings([])
        var expected = RunOptions.defaults
        expected.startedAt = settings.startedAt
        #expect(settings.runOptions(environment: .production, backend: .verifyReceipt) == expected)
        #expect(
            settings.runOptions(environment: .production, backend: .verifyReceipt).nightInstant == settings.startedAt)
    }

    @Test func aServerAPINightReadsAndRecordsItsNotificationSettings() throws {
        let settings = try Self.settings(
            ["--notifications-since", "72h", "--older-than", "2d"], ["RECON_SWEEP_DAYS": "12"])
        #expect(
            settings.runOptions(environment: .production, backend: .serverAPI).notifications
                == RunOptions.NotificationSelection(since: 259_200, sweepDays: 12, olderThanGiven: true))
        #expect(settings.runOptions(environment: .production, backend: .verifyReceipt).notifications == nil)
        let keys = ["noNotifications", "notificationsSince", "sweepDays"]
        let recorded = settings.request(RunSettings.declarations, backend: .serverAPI)
        #expect(keys.map { recorded[$0] } == [.flag(false), .integer(259_200), .integer(12)])
        let verifyReceipt = settings.request(RunSettings.declarations, backend: .verifyReceipt)
        #expect(keys.map { verifyReceipt[$0] } == [nil, nil, nil])
    }

    @Test func aNightWithoutNotificationsRecordsOnlyThat() throws {
        let settings = try Self.settings(["--no-notifications", "--sweep-days", "9"])
        #expect(settings.runOptions(environment: .production, backend: .serverAPI).notifications == nil)
        let recorded = settings.request(RunSettings.declarations, backend: .serverAPI)
        #expect(
            ["noNotifications", "notificationsSince", "sweepDays"].map { recorded[$0] } == [.flag(true), nil, nil])
    }

    /// The demo's run records the settings it runs with under the keys `run` records them.
    @Test func theDemoRecordsWhatItRunsWith() throws {
        let settings = DemoRunner.settings(asOf: Self.asOf)
        #expect(settings.runOptions(environment: .production, backend: .serverAPI).notifications == nil)
        #expect(
            try Self.json(DemoRunner.request(settings, backend: .serverAPI))
                == #"{"asOf":"2026-11-18T11:06:40Z","backend":"server-api","bundleIDs":["\#(WorldCatalog.appBundleID)"],"#
                + #""concurrency":32,"dryRun":false,"environment":"production","httpClient":"curl","maxAttempts":4,"#
                + #""maxRevokeRatio":0.2,"maxUnverifiedRatio":0.1,"olderThan":0,"rate":2000,"reconnectWindow":120,"#
                + #""sandboxPolicy":"revoke","shardCount":1,"shardIndex":0,"timeout":30}"#)
    }

    /// A setting's default that follows other settings follows their values as given.
    @Test func derivedDefaultsFollowTheSettingsTheyDependOn() throws {
        let sharded = try Self.settings(["--shard", "0/4"], ["RECON_MAX_REQUESTS_PER_HOUR": "500"])
        #expect(sharded[AppleRequestSettings.rate] == 5)
        #expect(sharded[AppleRequestSettings.sandboxRate] == 0.5)
        #expect(sharded[NotificationSettings.sandboxMaxRequestsPerHour] == 50)
        #expect(sharded.rateBasis == "default 20/s divided among 4 shards")
        let given = try Self.settings(["--shard", "0/4", "--rate", "3", "--sandbox-rate", "1"])
        #expect(given[AppleRequestSettings.rate] == 3)
        #expect(given[AppleRequestSettings.sandboxRate] == 1)
        #expect(given.rateBasis == "--rate")
    }
}
