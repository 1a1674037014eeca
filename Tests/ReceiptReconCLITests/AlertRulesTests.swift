import Foundation
import TestSupport
import Testing

/// The alert rules docs/operations.md gives, as Prometheus reads them: `promtool check rules`, and a
/// `promtool test rules` unit test in which a night completes and the following ones fail
/// (`AlertRulesShardSetTests`: the expected shards, scrape gaps, streaks and notifications).
@Suite struct AlertRulesTests {
    static let operations = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/operations.md")

    /// The YAML block of the **Alerts.** paragraph.
    static func rules() throws -> String {
        let text = try String(contentsOf: operations, encoding: .utf8)
        let section = try #require(text.range(of: "**Alerts.**"), "docs/operations.md lost its Alerts paragraph")
        let rest = text[section.upperBound...]
        let start = try #require(rest.range(of: "```yaml\n"))
        let end = try #require(rest[start.upperBound...].range(of: "\n```"))
        return String(rest[start.upperBound..<end.lowerBound]) + "\n"
    }

    /// Shard 0/1 completed a night at time 0 and then failed every night (exit 69, the last success carried
    /// forward, as the metrics file does); shard 1/2 completed every night; a dry run failed beside them.
    static let unitTest = """
        rule_files: [rules.yml]
        evaluation_interval: 1m
        tests:
          - interval: 1h
            input_series:
              - series: 'receipt_recon_last_success_timestamp_seconds{instance="db1",job="node",shard="0/1"}'
                values: '0x48'
              - series: 'receipt_recon_last_run_exit_code{instance="db1",job="node",shard="0/1",dry_run="false"}'
                values: '0 69x47'
              - series: 'receipt_recon_last_run_end_timestamp_seconds{instance="db1",job="node",shard="0/1",dry_run="false"}'
                values: '0+3600x48'
              - series: 'receipt_recon_last_success_timestamp_seconds{instance="db1",job="node",shard="1/2"}'
                values: '0+3600x48'
              - series: 'receipt_recon_last_run_exit_code{instance="db1",job="node",shard="1/2",dry_run="false"}'
                values: '0x48'
              - series: 'receipt_recon_last_run_end_timestamp_seconds{instance="db1",job="node",shard="1/2",dry_run="false"}'
                values: '0+3600x48'
              - series: 'receipt_recon_last_run_exit_code{instance="db1",job="node",shard="1/2",dry_run="true"}'
                values: '78x48'
            alert_rule_test:
              - eval_time: 25h
                alertname: ReceiptReconNoRecentSuccess
                exp_alerts: []
              - eval_time: 27h
                alertname: ReceiptReconNoRecentSuccess
                exp_alerts:
                  - exp_labels: {severity: page, instance: db1, job: node, shard: "0/1"}
                    exp_annotations:
                      summary: "receipt-recon shard 0/1: no completed run for more than 26 hours"
                      description: "See receipt_recon_last_run_exit_code and docs/operations.md (what to do for each exit code)."
              - eval_time: 2h
                alertname: ReceiptReconRunFailed
                exp_alerts:
                  - exp_labels: {severity: ticket, instance: db1, job: node, shard: "0/1", dry_run: "false"}
                    exp_annotations:
                      summary: "receipt-recon shard 0/1: the last run exited 69"
              - eval_time: 27h
                alertname: ReceiptReconNotRunning
                exp_alerts: []
              - eval_time: 27h
                alertname: ReceiptReconNoSuccessRecorded
                exp_alerts: []
          # A new install whose runs end with exit 1, a file per minute (rules with `for` need samples
          # closer than Prometheus's 5-minute lookback).
          - interval: 1m
            input_series:
              - series: 'receipt_recon_last_run_end_timestamp_seconds{instance="db2",job="node",shard="0/1",dry_run="false"}'
                values: '0x3000'
              - series: 'receipt_recon_last_run_exit_code{instance="db2",job="node",shard="0/1",dry_run="false"}'
                values: '1x3000'
            alert_rule_test:
              - eval_time: 2h
                alertname: ReceiptReconNoSuccessRecorded
                exp_alerts:
                  - exp_labels: {severity: ticket, instance: db2, job: node, shard: "0/1", dry_run: "false"}
                    exp_annotations:
                      summary: "receipt-recon shard 0/1: no run has completed yet"
              - eval_time: 27h
                alertname: ReceiptReconNotRunning
                exp_alerts:
                  - exp_labels: {severity: ticket, instance: db2, job: node, shard: "0/1", dry_run: "false"}
                    exp_annotations:
                      summary: "receipt-recon shard 0/1: no run ended for more than 26 hours"
          # Server API nights: two forged records one night (a dry run's are not paged).
          - interval: 1m
            input_series:
              - series: 'receipt_recon_last_run_notifications{instance="db3",job="node",shard="0/1",dry_run="false",kind="rejected"}'
                values: '0x60 2x60'
              - series: 'receipt_recon_last_run_notifications{instance="db3",job="node",shard="0/1",dry_run="true",kind="rejected"}'
                values: '5x120'
            alert_rule_test:
              - eval_time: 30m
                alertname: ReceiptReconNotificationsRejected
                exp_alerts: []
              - eval_time: 90m
                alertname: ReceiptReconNotificationsRejected
                exp_alerts:
                  - exp_labels: {severity: ticket, instance: db3, job: node, shard: "0/1", dry_run: "false", kind: rejected}
                    exp_annotations:
                      summary: "receipt-recon shard 0/1: 2 notifications failed verification"
        """

    static func scratch(_ rules: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try rules.write(to: directory.appendingPathComponent("rules.yml"), atomically: true, encoding: .utf8)
        try unitTest.write(to: directory.appendingPathComponent("rules_test.yml"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test func theDocumentedRulesPassPromtoolCheckRules() throws {
        let directory = try Self.scratch(try Self.rules())
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Promtool.checkRules([directory.appendingPathComponent("rules.yml").path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("SUCCESS: 11 rules found"), "\(result.output)")
    }

    @Test func theNoSuccessAlertFiresAfterADayOfFailedNights() throws {
        let directory = try Self.scratch(try Self.rules())
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Promtool.testRules([directory.appendingPathComponent("rules_test.yml").path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("SUCCESS"), "\(result.output)")
    }

    /// The unit test can fail: an alert that would fire only after two days does not pass it.
    @Test func theUnitTestNoticesARuleThatWaitsTooLong() throws {
        let slower = try Self.rules().replacingOccurrences(
            of: "time() - last_over_time(receipt_recon_last_success_timestamp_seconds[1h]) > 26 * 3600",
            with: "time() - last_over_time(receipt_recon_last_success_timestamp_seconds[1h]) > 48 * 3600")
        let directory = try Self.scratch(slower)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Promtool.testRules([directory.appendingPathComponent("rules_test.yml").path])
        #expect(result.status != 0, "\(result.output)")
    }
}
