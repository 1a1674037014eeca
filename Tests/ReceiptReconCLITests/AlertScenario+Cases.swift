import Foundation

/// The scenarios `AlertRulesShardSetTests` gives promtool: a healthy shard set, scrape gaps, a shard
/// that never reported, an install with no series at all, and the notification alerts.
extension AlertScenario {
    static let alerts = [
        "ReceiptReconNotReporting", "ReceiptReconNoRecentSuccess", "ReceiptReconNoSuccessRecorded",
        "ReceiptReconRunFailed", "ReceiptReconNotRunning", "ReceiptReconUnverifiedRepeats",
        "ReceiptReconNotificationsRejected", "ReceiptReconBudgetShort", "ReceiptReconNotificationsIncomplete",
        "ReceiptReconNotificationsUndelivered",
    ]

    static let fourShards = ["0/4", "1/4", "2/4", "3/4"]

    static func notReporting(_ shard: String, job: String = "node") -> Firing {
        Firing(
            labels: [("severity", "page"), ("job", job), ("shard", shard)],
            annotations: [
                (
                    "summary",
                    "receipt-recon shard \(shard): Prometheus has had no series of it (job \(job)) for 26 hours"
                ),
                (
                    "description",
                    "Check that the timer, cron job or CronJob runs the shard, that --metrics-file is in the "
                        + "collector's directory, and the expected shards in these rules (docs/operations.md, Alerts)."
                ),
            ])
    }

    static func ticket(_ shard: String, _ extra: [(String, String)], summary: String, description: String? = nil)
        -> Firing
    {
        Firing(
            labels: [
                ("severity", "ticket"), ("instance", "db1"), ("job", "node"), ("shard", shard), ("dry_run", "false"),
            ]
                + extra,
            annotations: [("summary", "receipt-recon shard \(shard): \(summary)")]
                + (description.map { [("description", $0)] } ?? []))
    }

    /// Four shards on two hosts, every night on time; streaks below their alerts' thresholds, and every
    /// series unscraped for ten minutes on the second day. Rules expecting "0/4" to "3/4".
    static func healthySet() -> AlertScenario {
        var scenario = AlertScenario(days: 3)
        scenario.healthyShard(
            instance: "db1", shard: "0/4",
            streaks: [
                "budget_spent": ["0", "1", "2"], "transiently_unverified": ["1", "2", "0"],
                "notifications_undelivered": ["0", "1"],
            ])
        scenario.healthyShard(instance: "db1", shard: "1/4")
        scenario.healthyShard(instance: "db2", shard: "2/4")
        scenario.healthyShard(instance: "db2", shard: "3/4")
        scenario.gap(from: 30 * 60, length: 10)
        scenario.expectSilence(alerts, at: [25 * 60, 30 * 60 + 5, 30 * 60 + 15, 50 * 60, 71 * 60])
        return scenario
    }

    /// One shard whose nights end with the budget spent and receipts transiently unverified, and that
    /// stops completing after the first night (exit 69); two ten-minute scrape gaps. Rules expecting "0/1".
    static func scrapeGaps() -> AlertScenario {
        var scenario = AlertScenario(days: 4)
        let streak = ["1", "2", "3", "4"]
        scenario.healthyShard(
            instance: "db1", shard: "0/1", streaks: ["budget_spent": streak, "transiently_unverified": streak])
        scenario.set(["receipt_recon_last_success_timestamp_seconds"], nightly: ["0"])
        scenario.set(["receipt_recon_last_run_exit_code"], nightly: ["0", "69"])
        scenario.gap(from: 30 * 60, length: 10)
        scenario.gap(from: 49 * 60, length: 10)
        let noSuccess = ticket("0/1", [], summary: "no completed run for more than 26 hours")
        let page = Firing(
            labels: [("severity", "page")] + noSuccess.labels.filter { $0.0 != "severity" && $0.0 != "dry_run" },
            annotations: noSuccess.annotations + [
                (
                    "description",
                    "See receipt_recon_last_run_exit_code and docs/operations.md (what to do for each exit code)."
                )
            ])
        scenario.expect("ReceiptReconNoRecentSuccess", at: 25 * 60)
        for minute in [27 * 60, 30 * 60 + 5, 30 * 60 + 15] {
            scenario.expect("ReceiptReconNoRecentSuccess", at: minute, [page])
            scenario.expect(
                "ReceiptReconRunFailed", at: minute, [ticket("0/1", [], summary: "the last run exited 69")])
        }
        scenario.expect("ReceiptReconBudgetShort", at: 47 * 60)
        scenario.expect("ReceiptReconUnverifiedRepeats", at: 47 * 60)
        for (minute, nights) in [(48 * 60 + 30, 3), (49 * 60 + 5, 3), (49 * 60 + 15, 3), (73 * 60, 4)] {
            scenario.expect(
                "ReceiptReconBudgetShort", at: minute,
                [
                    ticket(
                        "0/1", [("condition", "budget_spent")],
                        summary: "the request budget ended \(nights) nights running")
                ])
            scenario.expect(
                "ReceiptReconUnverifiedRepeats", at: minute,
                [
                    ticket(
                        "0/1", [("condition", "transiently_unverified")],
                        summary: "receipts stayed transiently unverified \(nights) nights running")
                ])
            scenario.expect("ReceiptReconNotReporting", at: minute)
        }
        return scenario
    }

    /// Shards 0/4, 1/4 and 3/4 report; 2/4 never did. Rules expecting "0/4" to "3/4".
    static func aShardThatNeverReported() -> AlertScenario {
        var scenario = AlertScenario(days: 2)
        for shard in ["0/4", "1/4", "3/4"] { scenario.healthyShard(instance: "db1", shard: shard) }
        scenario.expectSilence(alerts, at: [25 * 60])
        scenario.expect("ReceiptReconNotReporting", at: 27 * 60, [notReporting("2/4")])
        scenario.expect("ReceiptReconNotReporting", at: 47 * 60, [notReporting("2/4")])
        return scenario
    }

    /// No series at all: the timer never ran, or the file is written where no collector reads. Rules
    /// expecting "0/1".
    static func noSeriesAtAll() -> AlertScenario {
        var scenario = AlertScenario(days: 2)
        scenario.expectSilence(alerts, at: [25 * 60])
        scenario.expectSilence(alerts.filter { $0 != "ReceiptReconNotReporting" }, at: [27 * 60])
        scenario.expect("ReceiptReconNotReporting", at: 27 * 60, [notReporting("0/1")])
        return scenario
    }

    /// A server-api shard: the second night leaves part of the history unread, and Apple's deliveries to
    /// the app fail two nights running; a dry run's incomplete read is never an alert. A scrape gap in
    /// the second night. Rules expecting "0/1".
    static func notifications() -> AlertScenario {
        var scenario = AlertScenario(days: 3)
        scenario.healthyShard(
            instance: "db1", shard: "0/1",
            streaks: ["notifications_incomplete": ["0", "1", "0"], "notifications_undelivered": ["1", "2", "0"]])
        scenario.set(["last_run_notifications_incomplete"], nightly: ["0", "1", "0"])
        scenario.set(["delivery_failed"], nightly: ["3", "5", "0"])
        scenario.add(
            #"receipt_recon_last_run_notifications_incomplete{instance="db1",job="node",shard="0/1",dry_run="true"}"#,
            nightly: ["1"])
        scenario.gap(from: 30 * 60, length: 10)
        let incomplete = ticket(
            "0/1", [], summary: "the last night left part of Apple's notification history unread",
            description:
                "The log's event=notifications.incomplete (and report --last, 'left for the next run') says why.")
        let undelivered = ticket(
            "0/1", [("condition", "notifications_undelivered")],
            summary: "Apple could not deliver notifications to the app 2 nights running",
            description:
                #"receipt_recon_last_run_notifications{kind="delivery_failed"} counts them; check the app's "#
                + "App Store Server Notifications URL and its server.")
        scenario.expectSilence(
            ["ReceiptReconNotificationsIncomplete", "ReceiptReconNotificationsUndelivered"], at: [60])
        for minute in [25 * 60, 30 * 60 + 5, 30 * 60 + 15] {
            scenario.expect("ReceiptReconNotificationsIncomplete", at: minute, [incomplete])
            scenario.expect("ReceiptReconNotificationsUndelivered", at: minute, [undelivered])
        }
        scenario.expectSilence(
            ["ReceiptReconNotificationsIncomplete", "ReceiptReconNotificationsUndelivered"], at: [49 * 60])
        return scenario
    }
}
