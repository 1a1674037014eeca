import Foundation

/// One `promtool test rules` test: series sampled every minute (nil is a scrape that did not happen),
/// and at given minutes the alerts that must fire, none meaning it must stay silent. Shards run one
/// night a day, at minute 0 of each day.
struct AlertScenario {
    struct Firing {
        var labels: [(String, String)]
        var annotations: [(String, String)]
    }

    static let day = 1440

    var minutes: Int
    var series: [(selector: String, samples: [String?])] = []
    var checks: [(minute: Int, alert: String, firing: [Firing])] = []

    init(days: Int) {
        minutes = days * Self.day
    }

    /// A series whose value is `nightly[d]` through day `d` (the last one holds on).
    mutating func add(_ selector: String, nightly: [String]) {
        series.append(
            (selector, (0..<minutes).map { nightly[min($0 / Self.day, nightly.count - 1)] }))
    }

    /// A shard whose every night completes on time: `receipt_recon_*` as the metrics file says it, with
    /// the streaks of `streaks` (condition: the count each night).
    mutating func healthyShard(
        instance: String, job: String = "node", shard: String, streaks: [String: [String]] = [:]
    ) {
        let own = #"instance="\#(instance)",job="\#(job)",shard="\#(shard)""#
        let ends = (0...(minutes / Self.day)).map { String($0 * 86_400) }
        add("receipt_recon_last_success_timestamp_seconds{\(own)}", nightly: ends)
        add(#"receipt_recon_last_run_end_timestamp_seconds{\#(own),dry_run="false"}"#, nightly: ends)
        add(#"receipt_recon_last_run_exit_code{\#(own),dry_run="false"}"#, nightly: ["0"])
        add(#"receipt_recon_last_run_notifications{\#(own),dry_run="false",kind="rejected"}"#, nightly: ["0"])
        add(#"receipt_recon_last_run_notifications{\#(own),dry_run="false",kind="delivery_failed"}"#, nightly: ["0"])
        add(#"receipt_recon_last_run_notifications_incomplete{\#(own),dry_run="false"}"#, nightly: ["0"])
        for condition in [
            "budget_spent", "transiently_unverified", "notifications_incomplete", "notifications_undelivered",
        ] {
            add(
                #"receipt_recon_consecutive_nights{\#(own),dry_run="false",condition="\#(condition)"}"#,
                nightly: streaks[condition] ?? ["0"])
        }
    }

    /// Every series stops being scraped for `length` minutes from `minute`.
    mutating func gap(from minute: Int, length: Int) {
        for index in series.indices {
            for sample in minute..<min(minute + length, minutes) { series[index].samples[sample] = nil }
        }
    }

    /// Replaces the values of the series whose selector contains every one of `parts`.
    mutating func set(_ parts: [String], nightly: [String]) {
        for index in series.indices where parts.allSatisfy(series[index].selector.contains) {
            series[index].samples = (0..<minutes).map { nightly[min($0 / Self.day, nightly.count - 1)] }
        }
    }

    mutating func expect(_ alert: String, at minute: Int, _ firing: [Firing] = []) {
        checks.append((minute, alert, firing))
    }

    mutating func expectSilence(_ alerts: [String], at minutes: [Int]) {
        for minute in minutes {
            for alert in alerts { expect(alert, at: minute) }
        }
    }

    /// The test as a `tests:` entry of a promtool unit test file.
    var yaml: String {
        var text = "  - interval: 1m\n    input_series:\n"
        for (selector, samples) in series {
            text += "      - series: '\(selector)'\n        values: '\(Self.encode(samples))'\n"
        }
        if series.isEmpty { text += "      []\n" }
        text += "    alert_rule_test:\n"
        for check in checks {
            text += "      - eval_time: \(check.minute)m\n        alertname: \(check.alert)\n"
            guard !check.firing.isEmpty else {
                text += "        exp_alerts: []\n"
                continue
            }
            text += "        exp_alerts:\n"
            for firing in check.firing {
                text += "          - exp_labels: {\(Self.map(firing.labels))}\n"
                text += "            exp_annotations: {\(Self.map(firing.annotations))}\n"
            }
        }
        return text
    }

    /// promtool's expanding notation: `vxN` is N+1 samples of v, `_xN` N missing ones.
    static func encode(_ samples: [String?]) -> String {
        var runs: [(value: String?, count: Int)] = []
        for sample in samples {
            if let last = runs.last, last.value == sample {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((sample, 1))
            }
        }
        return runs.map { run in
            guard let value = run.value else { return run.count == 1 ? "_" : "_x\(run.count)" }
            return run.count == 1 ? value : "\(value)x\(run.count - 1)"
        }.joined(separator: " ")
    }

    static func map(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0): \"\($0.1.replacingOccurrences(of: "\"", with: "\\\""))\"" }.joined(separator: ", ")
    }

    /// A whole promtool unit test file reading `rules.yml`.
    static func file(_ scenarios: [AlertScenario]) -> String {
        "rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n" + scenarios.map(\.yaml).joined()
    }
}
