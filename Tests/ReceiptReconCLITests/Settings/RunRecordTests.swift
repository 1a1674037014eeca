import Foundation
import Testing

@testable import ReceiptReconCLI

/// What `recon_runs.options` says a run was asked: report, export and compare read these keys back, so
/// their names and values must not move when the code that builds them does.
@Suite struct RunRecordTests {
    /// The JSON a `run` with these arguments and variables writes to `recon_runs.options`.
    static func recorded(_ arguments: [String], _ environment: [String: String] = [:]) throws -> String {
        let parsed = try RunCommand.spec.parse(arguments)
        let options = try RunSettings(parsed, environment: environment)
        let configuration = try Configuration.load(parsed, environment: environment, needsApple: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(options.run(configuration).request), as: UTF8.self)
    }

    static let version = ReceiptRecon.version

    @Test func defaultsAreRecordedUnderTheirKeys() throws {
        #expect(
            try Self.recorded(["--as-of", "2026-11-22T03:00:00Z"])
                == #"{"asOf":"2026-11-22T03:00:00Z","backend":"verify-receipt","budgetHours":8,"bundleIDs":[],"concurrency":8,"#
                + #""dryRun":false,"environment":"production","httpClient":"curl","maxAnswerBytes":8388608,"#
                + #""maxAttempts":4,"maxRequestsPerHour":90000,"maxRetryWait":300,"maxRevokeRatio":0.2,"#
                + #""maxUnverifiedRatio":0.1,"olderThan":72000,"rate":20,"rateBasis":"default","reconnectWindow":120,"#
                + #""sandboxMaxRequestsPerHour":9000,"sandboxPolicy":"revoke","sandboxRate":2,"shardCount":1,"shardIndex":0,"timeout":30,"#
                + #""version":"\#(Self.version)"}"#)
    }

    @Test func flagsAreRecordedAsGiven() throws {
        let arguments = [
            "--as-of", "2026-11-22", "--dry-run", "--rate", "7.5", "--concurrency", "3", "--timeout", "12.5",
            "--max-attempts", "2", "--older-than", "7d", "--limit", "50", "--shard", "1/3", "--sandbox-policy", "flag",
            "--max-unverified-ratio", "0.3", "--max-revoke-ratio", "0.05", "--http-client", "urlsession",
            "--db-reconnect-window", "0", "--max-answer-bytes", "2048", "--max-retry-wait", "0.5", "--bundle-id", "a",
            "--bundle-id", "b", "--environment", "sandbox", "--json", "--metrics-file", "/tmp/m.prom",
            "--max-requests-per-hour", "1200", "--budget-hours", "2.5", "--sandbox-rate", "0.5",
            "--sandbox-max-requests-per-hour", "300",
        ]
        #expect(
            try Self.recorded(arguments, ["RECON_HTTP_CLIENT": "curl", "APPLE_BUNDLE_IDS": "c"])
                == #"{"asOf":"2026-11-22T00:00:00Z","backend":"verify-receipt","budgetHours":2.5,"bundleIDs":["a","b"],"#
                + #""concurrency":3,"#
                + #""dryRun":true,"environment":"sandbox","httpClient":"urlsession","limit":50,"maxAnswerBytes":2048,"#
                + #""maxAttempts":2,"maxRequestsPerHour":1200,"maxRetryWait":0.5,"maxRevokeRatio":0.05,"#
                + #""maxUnverifiedRatio":0.3,"#
                + #""olderThan":604800,"rate":7.5,"rateBasis":"--rate","reconnectWindow":0,"#
                + #""sandboxMaxRequestsPerHour":300,"sandboxPolicy":"flag","sandboxRate":0.5,"shardCount":3,"shardIndex":1,"timeout":12.5,"#
                + #""version":"\#(Self.version)"}"#)
    }

    @Test func variablesAndTheShardedDefaultRateAreRecorded() throws {
        let environment = [
            "RECON_HTTP_CLIENT": "urlsession", "RECON_MAX_RETRY_WAIT": "12", "RECON_MAX_ANSWER_BYTES": "4096",
            "RECON_DB_RECONNECT_WINDOW": "7.25", "APPLE_BUNDLE_IDS": "x, y", "RECON_ENVIRONMENT": "sandbox",
            "RECON_MAX_REQUESTS_PER_HOUR": "500", "RECON_BUDGET_HOURS": "0",
            "RECON_SANDBOX_MAX_REQUESTS_PER_HOUR": "40",
        ]
        #expect(
            try Self.recorded(["--as-of", "2026-11-22T03:00:00.250+01:00", "--shard", "2/3"], environment)
                == #"{"asOf":"2026-11-22T02:00:00Z","backend":"verify-receipt","budgetHours":0,"bundleIDs":["x","y"],"#
                + #""concurrency":8,"#
                + #""dryRun":false,"environment":"sandbox","httpClient":"urlsession","maxAnswerBytes":4096,"#
                + #""maxAttempts":4,"maxRequestsPerHour":500,"maxRetryWait":12,"maxRevokeRatio":0.2,"#
                + #""maxUnverifiedRatio":0.1,"#
                + #""olderThan":72000,"rate":6.666666666666667,"#
                + #""rateBasis":"default 20\/s divided among 3 shards","reconnectWindow":7.25,"#
                + #""sandboxMaxRequestsPerHour":40,"sandboxPolicy":"revoke","sandboxRate":0.6666666666666667,"#
                + #""shardCount":3,"shardIndex":2,"timeout":30,"#
                + #""version":"\#(Self.version)"}"#)
    }

    /// Every key of the record is declared by one setting, but for the two the run adds itself: where
    /// the rate came from, and the version that ran.
    @Test func everyRecordedKeyIsDeclaredOnce() {
        let declared = SettingsTable.all.flatMap(\.recordKeys)
        #expect(Set(declared).count == declared.count)
        #expect(
            Set(declared + ["rateBasis", "version"]) == [
                "asOf", "backend", "budgetHours", "bundleIDs", "concurrency", "dryRun", "environment", "httpClient",
                "limit", "maxAnswerBytes", "maxAttempts", "maxRequestsPerHour", "maxRetryWait", "maxRevokeRatio",
                "maxUnverifiedRatio", "noNotifications", "notificationsSince", "olderThan", "rate", "rateBasis",
                "reconnectWindow", "sandboxMaxRequestsPerHour", "sandboxPolicy", "sandboxRate", "shardCount",
                "shardIndex", "signedDataRoots", "sweepDays",
                "timeout", "version",
            ])
    }
}
