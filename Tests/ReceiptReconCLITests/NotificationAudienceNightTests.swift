import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// Whose notification it is (CONTRACT §9 "Notification history", issue 35 point 5), through the built
/// binary against the scripted App Store Server API's notification history and a real database: a
/// record Apple's `SignedDataVerifier` would refuse (another app's, another app Apple ID's, nested data
/// of another environment) is counted as refused and logged, and its users are never made due, stored,
/// or exported as unmatched; a production night without the app's Apple ID refuses to start (78).
@Suite struct NotificationAudienceNightTests {
    typealias Night = NotificationNightTests
    typealias Transaction = ServerAPIScriptTransaction
    typealias Notification = ServerAPIScriptNotification

    /// `index`'s subscription refunded an hour before `hoursAgo(2)`, as a REFUND would say it.
    static func refunded(_ index: Int) -> Transaction {
        Transaction(
            id: Night.transaction(index), purchased: Night.day(-10), expires: Night.day(20),
            revoked: Night.hoursAgo(3))
    }

    @Test func aNotificationApplesVerifierRefusesIsCountedAndNeverStoredOrActedOn() throws {
        try Night.world(3) { database, db, api in
            let first = try Night.run(database, api, asOf: Night.hoursAgo(4))
            #expect(first.result.status == 0, "\(first.result.output)")

            // Apple's history says nothing changed for u01 and u02; four records claim otherwise, each
            // refused by Apple's verifier; u03's renewal is genuine.
            var foreignBundle = Notification(
                uuid: "n-foreign-bundle", type: "REFUND", transaction: Self.refunded(1), signed: Night.hoursAgo(3))
            foreignBundle.bundleID = "com.someone.else"
            let foreignUnmatched = Notification(
                uuid: "n-foreign-unmatched", type: "ONE_TIME_CHARGE",
                transaction: Transaction(
                    id: "9001", product: "lifetime", type: "Non-Consumable", bundleID: "com.someone.else",
                    purchased: Night.hoursAgo(3)),
                signed: Night.hoursAgo(3))
            var foreignAppleID = Notification(
                uuid: "n-foreign-apple-id", type: "REFUND", transaction: Self.refunded(2), signed: Night.hoursAgo(3))
            foreignAppleID.appAppleID = 999_999
            var sandboxNested = Self.refunded(1)
            sandboxNested.environment = "Sandbox"
            let nestedEnvironment = Notification(
                uuid: "n-nested-sandbox", type: "REFUND", transaction: sandboxNested, signed: Night.hoursAgo(3))
            let genuine = Notification(
                uuid: "n-genuine", type: "DID_RENEW",
                transaction: Transaction(
                    id: Night.transaction(3), purchased: Night.day(-10), expires: Night.day(20)),
                signed: Night.hoursAgo(3))
            api.scriptEveryID(
                .production, .notificationHistory,
                [.notifications([foreignBundle, foreignUnmatched, foreignAppleID, nestedEnvironment, genuine])])

            let second = try Night.run(database, api, asOf: Night.hoursAgo(2))
            #expect(second.result.status == 0, "\(second.result.output)")
            let figures = Night.notifications(second.summary)
            #expect(figures["rejected"] as? Int == 4, "\(figures)")
            #expect(figures["read"] as? Int == 1, "\(figures)")
            #expect(figures["stored"] as? Int == 1, "\(figures)")
            #expect(figures["unmatched"] as? Int ?? 0 == 0, "\(figures)")
            #expect(Night.reasons(second.summary)["notified"] == 1, "only u03 is notified: \(second.summary)")
            let refused = second.result.stderr.split(separator: "\n").filter {
                $0.contains("event=notification.rejected")
            }
            #expect(refused.count == 4, "\(second.result.stderr)")
            #expect(refused.filter { $0.contains("INVALID_APP_IDENTIFIER") }.count == 3, "\(refused)")
            #expect(refused.filter { $0.contains("INVALID_ENVIRONMENT") }.count == 1, "\(refused)")

            #expect(try Night.strings(db, "SELECT notification_uuid AS s FROM recon_notifications") == ["n-genuine"])
            #expect(try Night.strings(db, "SELECT DISTINCT user_id AS s FROM recon_notification_users") == ["u03"])
            let export = try ReceiptReconBinary.run(
                [
                    "export", "notifications_unmatched", "--from", Night.text(Night.day(-1)), "--to",
                    Night.text(Night.day(1)),
                ], environment: ["DATABASE_URL": database.conninfo])
            #expect(export.status == 0, "\(export.output)")
            #expect(
                export.stdout.split(separator: "\r\n").count == 1, "only the header: \(export.stdout)")
            // Apple's own history stands: nobody lost access on another app's word.
            #expect(try Night.corrections(db).isEmpty)
            #expect(
                try Night.strings(db, "SELECT user_id AS s FROM entitlements WHERE active ORDER BY user_id")
                    == ["u01", "u02", "u03"])
        }
    }

    /// The types Apple's library names since 2026-05 (`NotificationTypeV2`: METADATA_UPDATE, MIGRATION,
    /// PRICE_CHANGE) are known: stored like any other, never logged or counted as unknown.
    @Test func applesNewestNotificationTypesAreKnown() throws {
        try Night.world(3) { database, db, api in
            #expect(try Night.run(database, api, asOf: Night.hoursAgo(4)).result.status == 0)
            let types = ["METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE"]
            let records = types.enumerated().map { index, type in
                Notification(
                    uuid: "n-\(type)", type: type,
                    transaction: Transaction(
                        id: Night.transaction(index + 1), purchased: Night.day(-10), expires: Night.day(20)),
                    signed: Night.hoursAgo(3))
            }
            api.scriptEveryID(.production, .notificationHistory, [.notifications(records)])
            let night = try Night.run(database, api, asOf: Night.hoursAgo(2))
            #expect(night.result.status == 0, "\(night.result.output)")
            let figures = Night.notifications(night.summary)
            #expect(figures["stored"] as? Int == 3, "\(figures)")
            #expect((figures["unknownTypes"] as? [String: Int] ?? [:]).isEmpty, "\(figures)")
            #expect(!night.result.stderr.contains("event=notification.unknown_type"), "\(night.result.stderr)")
            #expect(
                try Night.strings(db, "SELECT notification_type AS s FROM recon_notifications ORDER BY 1") == types)
        }
    }

    /// Apple's verifier cannot be made for production without the app's Apple ID, so a production
    /// server-api night that reads notifications refuses to start without it, and says where the id is.
    /// A night without notifications, and the sandbox (where Apple checks no Apple ID), need none.
    @Test func aProductionNotificationNightWithoutTheAppsAppleIDIsAConfigurationError() throws {
        try Night.world(1) { database, db, api in
            var environment = api.environment.merging([
                "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example,com.example.two",
                "APPLE_APP_APPLE_IDS": "com.example=1234",
            ]) { $1 }
            let base = ["run", "--backend", "server-api", "--json", "--max-attempts", "2"]
            let missingOne = try ReceiptReconBinary.run(base, environment: environment)
            #expect(missingOne.status == 78, "\(missingOne.output)")
            #expect(missingOne.stderr.contains("APPLE_APP_APPLE_IDS"), "\(missingOne.stderr)")
            #expect(missingOne.stderr.contains("com.example.two"), "\(missingOne.stderr)")
            #expect(
                missingOne.stderr.contains("App Store Connect > App Information > Apple ID"), "\(missingOne.stderr)")
            #expect(try Night.strings(db, "SELECT status AS s FROM recon_runs").isEmpty, "refused before any run")

            environment["APPLE_APP_APPLE_IDS"] = nil
            environment["APPLE_BUNDLE_IDS"] = "com.example"
            let missing = try ReceiptReconBinary.run(base, environment: environment)
            #expect(missing.status == 78, "\(missing.output)")

            let flag = try ReceiptReconBinary.run(
                base + ["--app-apple-id", "com.example=12x"], environment: environment)
            #expect(flag.status == 64, "a bad flag value is a usage error: \(flag.output)")
            var badVariable = environment
            badVariable["APPLE_APP_APPLE_IDS"] = "com.example"
            let variable = try ReceiptReconBinary.run(base, environment: badVariable)
            #expect(variable.status == 78, "\(variable.output)")
            #expect(variable.stderr.contains("APPLE_APP_APPLE_IDS must be"), "\(variable.stderr)")

            let withoutNotifications = try ReceiptReconBinary.run(
                base + ["--no-notifications", "--older-than", "0"], environment: environment)
            #expect(withoutNotifications.status == 0, "\(withoutNotifications.output)")

            let given = try ReceiptReconBinary.run(
                base + ["--app-apple-id", "com.example=\(Notification.scriptedAppAppleID)"], environment: environment)
            #expect(given.status == 0, "\(given.output)")
        }
    }
}
