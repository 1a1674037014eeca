import Foundation
import Reconciliation
import TestSupport
import Testing

/// The metrics file read back by a real Prometheus text-format parser (`prometheus_client`, Debian
/// python3-prometheus-client) and linted by Prometheus's own `promtool check metrics`.
struct PrometheusMetricsTests {
    typealias RunEnd = PrometheusMetrics.RunEnd

    static func parse(_ text: String) throws -> [PrometheusClientParser.Family] {
        let families = try PrometheusClientParser.parse(text)
        let lint = try Promtool.checkMetrics(text)
        #expect(lint.status == 0 && lint.output.isEmpty, "promtool check metrics:\n\(lint.output)\n\(text)")
        return families
    }

    /// The sample `receipt_recon_<name>` of shard 0/1, of the nightly run unless `dryRun`.
    static func value(
        _ families: [PrometheusClientParser.Family], _ name: String, _ labels: [String: String] = [:],
        dryRun: Bool? = false
    ) -> Double? {
        var all = labels.merging(["shard": "0/1"]) { new, _ in new }
        if let dryRun, name != "last_success_timestamp_seconds" { all["dry_run"] = dryRun ? "true" : "false" }
        return PrometheusClientParser.value(families, "receipt_recon_" + name, all)
    }

    static func end(_ summary: RunSummary, _ exitCode: ExitCode, backend: String = "verify-receipt") -> RunEnd {
        RunEnd(summary: summary, exitCode: exitCode, version: "9.8.7", backend: backend)
    }

    /// A file as `run` writes it: the last success as `lastSuccess(of:previous:)` finds it.
    static func file(_ end: RunEnd, previous: String? = nil) -> String {
        PrometheusMetrics.render(
            end, lastSuccess: PrometheusMetrics.lastSuccess(of: end, previous: previous), previous: previous)
    }

    static func neverStarted(status: String, _ exitCode: ExitCode, shard: String = "0/1", dryRun: Bool = false)
        -> RunEnd
    {
        RunEnd(
            shard: shard, dryRun: dryRun, status: status, exitCode: exitCode,
            startedAt: Date(timeIntervalSince1970: 1_767_326_400),
            finishedAt: Date(timeIntervalSince1970: 1_767_326_405),
            version: "9.8.7", backend: "server-api")
    }

    @Test func parsesWithTheFiguresOfTheRun() throws {
        var summary = ReportFixtures.summary()
        summary.appleRequestsByEndpoint = ["transaction_history": 3_000, "subscription_statuses": 101]
        let families = try Self.parse(Self.file(Self.end(summary, .someUnverified, backend: "server-api")))
        #expect(
            families.allSatisfy {
                $0.name.hasPrefix("receipt_recon_") && $0.type == "gauge" && !$0.documentation.isEmpty
            })
        #expect(Self.value(families, "build_info", ["version": "9.8.7", "backend": "server-api"]) == 1)
        #expect(Self.value(families, "last_run_start_timestamp_seconds") == 1_767_240_000)
        #expect(Self.value(families, "last_run_end_timestamp_seconds") == 1_767_240_754.5)
        #expect(Self.value(families, "last_success_timestamp_seconds") == 1_767_240_754.5)
        #expect(Self.value(families, "last_run_duration_seconds") == 754.5)
        #expect(Self.value(families, "last_run_exit_code") == 1)
        #expect(Self.value(families, "last_run_status", ["status": "completed"]) == 1)
        #expect(Self.value(families, "last_run_status", ["status": "failed"]) == 0)
        #expect(Self.value(families, "last_run_id") == 42)
        #expect(Self.value(families, "last_run_receipts", ["outcome": "valid"]) == 2_950)
        #expect(Self.value(families, "last_run_receipts", ["outcome": "unverified"]) == 12)
        #expect(Self.value(families, "last_run_corrections", ["action": "revoke", "reason": "expired"]) == 9)
        #expect(
            Self.value(families, "last_run_corrections", ["action": "grant", "reason": "purchase_not_granted"]) == 7)
        #expect(Self.value(families, "last_run_flags", ["kind": "sandbox_in_production"]) == 4)
        #expect(Self.value(families, "last_run_apple_requests") == 3_101)
        #expect(
            Self.value(families, "last_run_apple_requests_by_endpoint", ["endpoint": "transaction_history"]) == 3_000)
        // Receipts, not requests: 3,017 receipts over 3,101 requests.
        #expect(Self.value(families, "last_run_receipts_by_apple_status", ["status": "21003"]) == 24)
        #expect(Self.value(families, "last_run_receipts_by_apple_status", ["status": "none"]) == 12)
        #expect(Self.value(families, "last_run_apple_retries") == 53)
        #expect(Self.value(families, "last_run_apple_throttled") == 17)
        #expect(Self.value(families, "last_run_apple_latency_p50_seconds") == 0.182)
        #expect(Self.value(families, "last_run_apple_latency_p95_seconds") == 0.611)
        #expect(!families.flatMap(\.samples).contains { $0.labels["quantile"] != nil })
    }

    /// `last_run_budget_spent` (ReceiptReconBudgetShort) is 1 only for a run the budget ended: a breaker
    /// that tripped while a spent budget drained ended that run, and the alert must not blame the budget.
    @Test(arguments: [(RunStatus.completed, ExitCode.success, 1.0), (.aborted, .unavailable, 0.0)])
    func budgetSpentIsOneOnlyForARunTheBudgetEnded(status: RunStatus, exitCode: ExitCode, spent: Double) throws {
        var summary = ReportFixtures.summary()
        summary.status = status
        summary.budget = BudgetFigures(maxRequestsPerHour: 90_000)
        summary.budget?.spentEndpoint = "transaction_history"
        let families = try Self.parse(Self.file(Self.end(summary, exitCode, backend: "server-api")))
        #expect(Self.value(families, "last_run_budget_spent") == spent)
    }

    @Test func aFailedRunCarriesTheLastSuccessForward() throws {
        let night = Self.file(Self.end(ReportFixtures.summary(), .success))
        var summary = RunSummary()
        summary.status = .aborted
        summary.runID = 43
        summary.startedAt = Date(timeIntervalSince1970: 1_767_326_400)
        let aborted = Self.end(summary, .unavailable)
        #expect(
            PrometheusMetrics.lastSuccess(of: aborted, previous: night) == Date(timeIntervalSince1970: 1_767_240_754.5))

        let families = try Self.parse(Self.file(aborted, previous: night))
        #expect(Self.value(families, "last_success_timestamp_seconds") == 1_767_240_754.5)
        #expect(Self.value(families, "last_run_exit_code") == 69)
        #expect(Self.value(families, "last_run_status", ["status": "aborted"]) == 1)
        #expect(Self.value(families, "last_run_id") == 43)
        #expect(Self.value(families, "last_run_receipts", ["outcome": "valid"]) == 0)
        #expect(Self.value(families, "last_run_apple_latency_p50_seconds") == nil)

        // And through a second failed night, one that never started.
        let again = try Self.parse(
            Self.file(
                Self.neverStarted(status: "failed", .configuration), previous: Self.file(aborted, previous: night)))
        #expect(Self.value(again, "last_success_timestamp_seconds") == 1_767_240_754.5)
    }

    @Test func aRunThatNeverStartedSaysSoWithoutFigures() throws {
        let families = try Self.parse(Self.file(Self.neverStarted(status: "skipped", .tempFail)))
        #expect(Self.value(families, "last_run_exit_code") == 75)
        #expect(Self.value(families, "last_run_status", ["status": "skipped"]) == 1)
        #expect(Self.value(families, "last_run_end_timestamp_seconds") == 1_767_326_405)
        #expect(Self.value(families, "last_run_duration_seconds") == 5)
        #expect(Self.value(families, "build_info", ["version": "9.8.7", "backend": "server-api"]) == 1)
        #expect(Self.value(families, "last_success_timestamp_seconds") == nil, "nothing knew of a success")
        #expect(Self.value(families, "last_run_id") == nil)
        #expect(Self.value(families, "last_run_receipts", ["outcome": "valid"]) == nil)
    }

    @Test func aDryRunKeepsTheNightlySeriesAndNeverTouchesTheLastSuccess() throws {
        let night = Self.file(Self.end(ReportFixtures.summary(), .success))
        var dry = ReportFixtures.summary(runID: 50, exitCode: .success)
        dry.dryRun = true
        dry.finishedAt = Date(timeIntervalSince1970: 1_767_300_000)
        dry.corrections = [.revoke: [.refund: 99]]
        let dryEnd = Self.end(dry, .success, backend: "server-api")
        #expect(PrometheusMetrics.lastSuccess(of: dryEnd, previous: night) == nil, "a dry run has none of its own")
        // Even when told one, a dry run writes no last success: its own file holds none to clash with the
        // nightly file's in a collector directory.
        let alone = try Self.parse(
            PrometheusMetrics.render(dryEnd, lastSuccess: Date(timeIntervalSince1970: 1), previous: nil))
        #expect(Self.value(alone, "last_success_timestamp_seconds") == nil)
        #expect(Self.value(alone, "last_run_exit_code", dryRun: true) == 0)

        let both = Self.file(dryEnd, previous: night)
        let families = try Self.parse(both)
        #expect(Self.value(families, "last_success_timestamp_seconds") == 1_767_240_754.5)
        #expect(Self.value(families, "last_run_end_timestamp_seconds", dryRun: false) == 1_767_240_754.5)
        #expect(Self.value(families, "last_run_end_timestamp_seconds", dryRun: true) == 1_767_300_000)
        #expect(Self.value(families, "last_run_id", dryRun: false) == 42)
        #expect(Self.value(families, "last_run_id", dryRun: true) == 50)
        #expect(
            Self.value(families, "last_run_corrections", ["action": "revoke", "reason": "refund"], dryRun: true) == 99)
        #expect(
            Self.value(families, "last_run_corrections", ["action": "revoke", "reason": "refund"], dryRun: false) == 5)
        #expect(Self.value(families, "build_info", ["version": "9.8.7", "backend": "server-api"], dryRun: true) == 1)
        #expect(
            Self.value(families, "build_info", ["version": "9.8.7", "backend": "verify-receipt"], dryRun: false) == 1)

        // The next nightly run replaces its own series and keeps the dry run's.
        var next = ReportFixtures.summary(runID: 51, exitCode: .success)
        next.finishedAt = Date(timeIntervalSince1970: 1_767_330_000)
        let after = try Self.parse(Self.file(Self.end(next, .success), previous: both))
        #expect(Self.value(after, "last_success_timestamp_seconds") == 1_767_330_000)
        #expect(Self.value(after, "last_run_id", dryRun: false) == 51)
        #expect(Self.value(after, "last_run_id", dryRun: true) == 50)
    }

    @Test func otherShardsSeriesAreKeptAsTheyWere() throws {
        var other = ReportFixtures.summary(runID: 7)
        other.shard = "3/4"
        let theirs = Self.file(Self.end(other, .success))
        let mine = try Self.parse(Self.file(Self.neverStarted(status: "failed", .unavailable), previous: theirs))
        #expect(
            PrometheusClientParser.value(mine, "receipt_recon_last_run_id", ["shard": "3/4", "dry_run": "false"]) == 7)
        #expect(
            PrometheusClientParser.value(mine, "receipt_recon_last_success_timestamp_seconds", ["shard": "3/4"])
                == 1_767_240_754.5)
        #expect(Self.value(mine, "last_success_timestamp_seconds") == nil, "shard 3/4's success is not shard 0/1's")
        #expect(Self.value(mine, "last_run_exit_code") == 69)
    }

    @Test func anOlderVersionsFileKeepsItsLastSuccessAndLosesItsOldNames() throws {
        let old = """
            # HELP receipt_recon_last_success_timestamp_seconds old help
            # TYPE receipt_recon_last_success_timestamp_seconds gauge
            receipt_recon_last_success_timestamp_seconds{shard="0/1"} 1700000000
            # TYPE receipt_recon_last_run_exit_code gauge
            receipt_recon_last_run_exit_code{shard="0/1"} 0
            # TYPE receipt_recon_last_run_apple_requests_by_status gauge
            receipt_recon_last_run_apple_requests_by_status{shard="0/1",status="0"} 12
            # TYPE receipt_recon_last_run_apple_latency_seconds gauge
            receipt_recon_last_run_apple_latency_seconds{shard="0/1",quantile="0.5"} 0.1
            not a sample at all
            receipt_recon_last_run_flags{shard="0/1",dry_run="false",kind="un\\"closed} 3

            """
        let text = Self.file(Self.neverStarted(status: "failed", .unavailable), previous: old)
        let families = try Self.parse(text)
        #expect(Self.value(families, "last_success_timestamp_seconds") == 1_700_000_000)
        #expect(Self.value(families, "last_run_exit_code") == 69)
        #expect(!text.contains("requests_by_status") && !text.contains("quantile") && !text.contains("old help"))
    }

    @Test func hostileLabelValuesAreEscapedAndSurviveBeingCarried() throws {
        var summary = ReportFixtures.summary()
        let hostile = "a\"b\\c\nd} x=\"1"
        summary.shard = hostile
        let first = Self.file(Self.end(summary, .success))
        let families = try Self.parse(first)
        #expect(
            PrometheusClientParser.value(
                families, "receipt_recon_last_run_flags",
                ["kind": "bundle_mismatch", "shard": hostile, "dry_run": "false"])
                == 3)
        // Carried over by another shard's run, byte for byte.
        let carried = try Self.parse(Self.file(Self.neverStarted(status: "failed", .unavailable), previous: first))
        #expect(
            PrometheusClientParser.value(carried, "receipt_recon_last_success_timestamp_seconds", ["shard": hostile])
                == 1_767_240_754.5)
        #expect(
            PrometheusClientParser.value(
                carried, "receipt_recon_last_run_flags",
                ["kind": "bundle_mismatch", "shard": hostile, "dry_run": "false"])
                == 3)
    }
}
