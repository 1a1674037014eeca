import Foundation
import TestSupport
import Testing

/// The documented alert rules with the operator's one edit (the expected shards), under `promtool test
/// rules`: silent for a healthy shard set, loud for a shard that never reported and for an install with
/// no series at all, unmoved by scrape gaps, and the notification alerts.
@Suite struct AlertRulesShardSetTests {
    /// The example rule of the group `receipt-recon-expected-shards`, as docs/operations.md gives it.
    static let example = """
              - record: receipt_recon_expected_shard
                expr: vector(1)
                labels: {job: node, shard: "0/1"}

        """

    /// The documented rules as an operator edits them for `shards` under `job`.
    static func rules(expecting shards: [String], job: String = "node") throws -> String {
        let rules = try AlertRulesTests.rules()
        #expect(rules.components(separatedBy: example).count == 2, "docs/operations.md lost its expected-shard rule")
        let listed = shards.map {
            example.replacingOccurrences(of: #"{job: node, shard: "0/1"}"#, with: #"{job: \#(job), shard: "\#($0)"}"#)
        }
        return rules.replacingOccurrences(of: example, with: listed.joined())
    }

    static func test(_ scenario: AlertScenario, expecting shards: [String], rules: String? = nil) throws
        -> Promtool.Result
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try (rules ?? Self.rules(expecting: shards)).write(
            to: directory.appendingPathComponent("rules.yml"), atomically: true, encoding: .utf8)
        let tests = directory.appendingPathComponent("rules_test.yml")
        try AlertScenario.file([scenario]).write(to: tests, atomically: true, encoding: .utf8)
        return try Promtool.testRules([tests.path])
    }

    @Test func aHealthyShardSetIsSilentThroughAScrapeGap() throws {
        let result = try Self.test(.healthySet(), expecting: AlertScenario.fourShards)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func scrapeGapsNeitherResolveNorRestartAnAlert() throws {
        let result = try Self.test(.scrapeGaps(), expecting: ["0/1"])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func aShardThatNeverReportedFires() throws {
        let result = try Self.test(.aShardThatNeverReported(), expecting: AlertScenario.fourShards)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func anInstallWithNoSeriesAtAllFires() throws {
        let result = try Self.test(.noSeriesAtAll(), expecting: ["0/1"])
        #expect(result.status == 0, "\(result.output)")
    }

    /// The series under another job than the rules name are not the expected shard's: the edit matters.
    @Test func seriesUnderAnotherJobDoNotCountAsTheExpectedShard() throws {
        var scenario = AlertScenario(days: 2)
        scenario.healthyShard(instance: "db1", job: "receipt-recon", shard: "0/1")
        scenario.expect("ReceiptReconNotReporting", at: 27 * 60, [AlertScenario.notReporting("0/1")])
        #expect(try Self.test(scenario, expecting: ["0/1"]).status == 0)
        var listed = AlertScenario(days: 2)
        listed.healthyShard(instance: "db1", job: "receipt-recon", shard: "0/1")
        listed.expect("ReceiptReconNotReporting", at: 27 * 60)
        let result = try Self.test(
            listed, expecting: ["0/1"], rules: Self.rules(expecting: ["0/1"], job: "receipt-recon"))
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func anIncompleteHistoryAndUndeliveredNotificationsFire() throws {
        let result = try Self.test(.notifications(), expecting: ["0/1"])
        #expect(result.status == 0, "\(result.output)")
    }

    /// The gap scenario can fail: a rule reading the last sample alone resolves in a scrape gap.
    @Test func theGapScenarioNoticesARuleThatForgetsInAGap() throws {
        let forgetful = try Self.rules(expecting: ["0/1"]).replacingOccurrences(
            of: "time() - last_over_time(receipt_recon_last_success_timestamp_seconds[1h])",
            with: "time() - receipt_recon_last_success_timestamp_seconds")
        let result = try Self.test(.scrapeGaps(), expecting: ["0/1"], rules: forgetful)
        #expect(result.status != 0, "\(result.output)")
    }
}
