import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// Server API nights through the built binary write the figures the notification alerts read (an
/// incomplete history, Apple's deliveries to the app that failed, and the nights running of each), and
/// the documented rules fire on the file as the binary wrote it.
@Suite struct NotificationAlertNightTests {
    typealias Night = NotificationNightTests

    /// `text`'s samples as promtool input series, every minute for an hour, scraped from host `db1` by
    /// the scrape job `node`.
    static func scenario(_ text: String) throws -> AlertScenario {
        var scenario = AlertScenario(days: 1)
        scenario.minutes = 60
        for sample in try PrometheusClientParser.parse(text).flatMap(\.samples) {
            let labels = sample.labels.merging(["instance": "db1", "job": "node"]) { old, _ in old }
            let list = labels.sorted { $0.key < $1.key }.map { #"\#($0.key)="\#(Self.escape($0.value))""# }
            let value = sample.value == sample.value.rounded() ? String(Int64(sample.value)) : String(sample.value)
            scenario.add("\(sample.name){\(list.joined(separator: ","))}", nightly: [value])
        }
        return scenario
    }

    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: #"\"#, with: #"\\"#).replacingOccurrences(of: "\"", with: #"\""#)
            .replacingOccurrences(of: "'", with: "''")
    }

    @Test func theNotificationAlertsFireOnTheFileAServerAPINightWrites() throws {
        let path = MetricsFileTests.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Night.world(3) { database, _, api in
            let metrics = ["--metrics-file", path]
            let first = try Night.run(database, api, asOf: Night.hoursAgo(4), metrics)
            #expect(first.result.status == 0, "\(first.result.output)")

            // The app's webhook missed u01's refund, and every piece's second page fails after its retries.
            var missed = Night.refund(api, 1, hoursAgo: 4.5, uuid: "n-refund-u01")
            missed.deliveryFailed = true
            api.scriptEveryID(.production, .notificationHistory, [.notifications([missed], paginationToken: "page-2")])
            api.script(.production, .notificationHistory, id: "page-2", [.error(5_000_001, status: 500)])
            let second = try Night.run(database, api, asOf: Night.hoursAgo(2), metrics)
            #expect(second.result.status == 0, "\(second.result.output)")
            let secondFile = try MetricsFileTests.read(path)
            let secondFigures = Night.notifications(second.summary)
            #expect(secondFigures["incomplete"] != nil, "\(second.summary)")
            let failed = try #require(secondFigures["deliveryFailed"] as? Int)
            #expect(failed > 0)
            #expect(secondFile.value("last_run_notifications", ["kind": "delivery_failed"]) == Double(failed))
            #expect(secondFile.value("last_run_notifications_incomplete") == 1)
            #expect(secondFile.value("consecutive_nights", ["condition": "notifications_incomplete"]) == 1)
            #expect(secondFile.value("consecutive_nights", ["condition": "notifications_undelivered"]) == 1)

            // The next night reads the history whole; the webhook missed u02's refund too. It starts with no
            // file, as a pod's fresh volume does: the nights running come from the database.
            try FileManager.default.removeItem(atPath: path)
            var missedAgain = Night.refund(api, 2, hoursAgo: 1.5, uuid: "n-refund-u02")
            missedAgain.deliveryFailed = true
            api.scriptEveryID(.production, .notificationHistory, [.notifications([missedAgain])])
            api.script(.production, .notificationHistory, id: "page-2", [.notifications([])])
            let third = try Night.run(database, api, asOf: Night.now, metrics)
            #expect(third.result.status == 0, "\(third.result.output)")
            let thirdFile = try MetricsFileTests.read(path)
            #expect(Night.notifications(third.summary)["incomplete"] == nil, "\(third.summary)")
            #expect(thirdFile.value("last_run_notifications_incomplete") == 0)
            #expect(thirdFile.value("consecutive_nights", ["condition": "notifications_incomplete"]) == 0)
            #expect(thirdFile.value("consecutive_nights", ["condition": "notifications_undelivered"]) == 2)

            // What Prometheus would make of each file.
            var afterSecond = try Self.scenario(secondFile.text)
            afterSecond.expect(
                "ReceiptReconNotificationsIncomplete", at: 30,
                [
                    AlertScenario.ticket(
                        "0/1", [], summary: "the last night left part of Apple's notification history unread",
                        description:
                            "The log's event=notifications.incomplete (and report --last, 'left for the next run') says why."
                    )
                ])
            afterSecond.expect("ReceiptReconNotificationsUndelivered", at: 30)
            var afterThird = try Self.scenario(thirdFile.text)
            afterThird.expect("ReceiptReconNotificationsIncomplete", at: 30)
            afterThird.expect(
                "ReceiptReconNotificationsUndelivered", at: 30,
                [
                    AlertScenario.ticket(
                        "0/1", [("condition", "notifications_undelivered")],
                        summary: "Apple could not deliver notifications to the app 2 nights running",
                        description:
                            #"receipt_recon_last_run_notifications{kind="delivery_failed"} counts them; check the app's "#
                            + "App Store Server Notifications URL and its server.")
                ])
            for var scenario in [afterSecond, afterThird] {
                scenario.expect("ReceiptReconRunFailed", at: 30)
                let result = try AlertRulesShardSetTests.test(scenario, expecting: ["0/1"])
                #expect(result.status == 0, "\(result.output)")
            }
        }
    }
}
