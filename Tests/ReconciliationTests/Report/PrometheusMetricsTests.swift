import Foundation
import Reconciliation
import TestSupport
import Testing

/// The metrics file read back by a real Prometheus text-format parser (`prometheus_client`, Debian python3-prometheus-client).
struct PrometheusMetricsTests {
    struct Sample: Decodable, Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Family: Decodable {
        var name: String
        var type: String
        var documentation: String
        var samples: [Sample]
    }

    static let parser = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        out = []
        for f in text_string_to_metric_families(sys.stdin.read()):
            out.append({"name": f.name, "type": f.type, "documentation": f.documentation,
                        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]})
        print(json.dumps(out))
        """

    static func parse(_ text: String) throws -> [Family] {
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", parser], stdin: Data(text.utf8), timeout: 60)
        try #require(result.status == 0, "prometheus_client rejected the metrics:\n\(result.stderrText)\n\(text)")
        return try JSONDecoder().decode([Family].self, from: result.stdout)
    }

    static func value(_ families: [Family], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        let all = labels.merging(["shard": "0/1"]) { new, _ in new }
        return families.flatMap(\.samples).first { $0.name == "receipt_recon_" + name && $0.labels == all }?.value
    }

    @Test func parsesWithTheFiguresOfTheRun() throws {
        let families = try Self.parse(PrometheusMetrics.render(ReportFixtures.summary(), exitCode: .someUnverified))
        #expect(
            families.allSatisfy {
                $0.name.hasPrefix("receipt_recon_") && $0.type == "gauge" && !$0.documentation.isEmpty
            })
        #expect(Self.value(families, "last_run_start_timestamp_seconds") == 1_767_240_000)
        #expect(Self.value(families, "last_run_end_timestamp_seconds") == 1_767_240_754.5)
        #expect(Self.value(families, "last_success_timestamp_seconds") == 1_767_240_754.5)
        #expect(Self.value(families, "last_run_duration_seconds") == 754.5)
        #expect(Self.value(families, "last_run_exit_code") == 1)
        #expect(Self.value(families, "last_run_receipts", ["outcome": "valid"]) == 2_950)
        #expect(Self.value(families, "last_run_receipts", ["outcome": "unverified"]) == 12)
        #expect(Self.value(families, "last_run_corrections", ["action": "revoke", "reason": "expired"]) == 9)
        #expect(
            Self.value(families, "last_run_corrections", ["action": "grant", "reason": "purchase_not_granted"]) == 7)
        #expect(Self.value(families, "last_run_flags", ["kind": "sandbox_in_production"]) == 4)
        #expect(Self.value(families, "last_run_apple_requests") == 3_101)
        #expect(Self.value(families, "last_run_apple_requests_by_status", ["status": "21003"]) == 24)
        #expect(Self.value(families, "last_run_apple_retries") == 53)
        #expect(Self.value(families, "last_run_apple_throttled") == 17)
        #expect(Self.value(families, "last_run_apple_latency_seconds", ["quantile": "0.95"]) == 0.611)
    }

    @Test func failedRunHasNoSuccessTimestampAndZeroOutcomes() throws {
        var summary = RunSummary()
        summary.status = .aborted
        summary.startedAt = Date(timeIntervalSince1970: 1_000)
        let families = try Self.parse(
            PrometheusMetrics.render(summary, exitCode: .unavailable, finishedAt: Date(timeIntervalSince1970: 1_060)))
        #expect(Self.value(families, "last_success_timestamp_seconds") == nil)
        #expect(Self.value(families, "last_run_end_timestamp_seconds") == 1_060)
        #expect(Self.value(families, "last_run_exit_code") == 69)
        #expect(Self.value(families, "last_run_receipts", ["outcome": "valid"]) == 0)
        #expect(Self.value(families, "last_run_apple_latency_seconds", ["quantile": "0.5"]) == nil)
    }

    @Test func hostileLabelValuesAreEscaped() throws {
        var summary = ReportFixtures.summary()
        let hostile = "a\"b\\c\nd} x=\"1"
        summary.shard = hostile
        let families = try Self.parse(PrometheusMetrics.render(summary, exitCode: .success))
        #expect(Self.value(families, "last_run_flags", ["kind": "bundle_mismatch", "shard": hostile]) == 3)
        #expect(Self.value(families, "last_success_timestamp_seconds", ["shard": hostile]) != nil)
    }
}
