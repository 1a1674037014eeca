import AppStoreReceipts
import Foundation
import Testing

/// A differential of the job's notification check against Apple's own verifier
/// (app-store-server-library-python 8b5ccdc, `signed_data_verifier.py`), over notifications signed with a
/// test chain. Each case's verdict is written as Apple's `SignedDataVerifier` gives it, read from its
/// source, for a verifier made for the notification's app (`bundle_id`, `app_apple_id`) and the
/// environment asked; nested data is what the same verifier's `verify_and_decode_signed_transaction`,
/// `verify_and_decode_renewal_info` and `verify_and_decode_app_transaction` accept:
///
/// - `_verify_notification`: `bundle_id != self._bundle_id or (production and app_apple_id !=
///   self._app_apple_id)` → INVALID_APP_IDENTIFIER; then `environment != self._environment` →
///   INVALID_ENVIRONMENT; the three read from `data`, else `summary`, else `externalPurchaseToken`
///   (environment: Sandbox when `externalPurchaseId` starts with `SANDBOX`, else Production), else `appData`;
/// - a transaction: `bundleId` other → INVALID_APP_IDENTIFIER, then `environment` other → INVALID_ENVIRONMENT;
/// - renewal info: `environment` other → INVALID_ENVIRONMENT (no bundle check);
/// - an app transaction: `bundleId` or production `appAppleId` other → INVALID_APP_IDENTIFIER, then
///   `receiptType` other → INVALID_ENVIRONMENT.
///
/// A missing value is "other" in each comparison (`None != "com.example.app"`).
@Suite struct NotificationAudienceDifferentialTests {
    enum AppleVerdict: String, Sendable {
        case accepted = "accepted"
        case invalidAppIdentifier = "INVALID_APP_IDENTIFIER"
        case invalidEnvironment = "INVALID_ENVIRONMENT"
    }

    static let chain = try! SigningChain.mint(
        notBefore: Date(timeIntervalSince1970: 1_700_000_000), notAfter: Date(timeIntervalSince1970: 1_900_000_000))
    static let app = "com.example.app"
    static let otherApp = "com.example.other"
    static let appleID: Int64 = 1234
    static let otherAppleID: Int64 = 5678

    static func audience(_ environment: AppStoreEnvironment) -> NotificationAudience {
        NotificationAudience(
            acceptedBundleIDs: [app, otherApp], appAppleIDs: [app: appleID, otherApp: otherAppleID],
            environment: environment)
    }

    static func sign(_ object: [String: Any]) -> String {
        chain.sign(payload: Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    }

    static func transaction(bundle: String? = app, environment: String? = "Production") -> String {
        var object: [String: Any] = [
            "transactionId": "1009", "originalTransactionId": "1000", "productId": "com.example.monthly",
            "type": "Auto-Renewable Subscription", "signedDate": 1_799_000_100_000,
        ]
        object["bundleId"] = bundle
        object["environment"] = environment
        return sign(object)
    }

    static func renewalInfo(environment: String? = "Production") -> String {
        var object: [String: Any] = [
            "originalTransactionId": "1000", "autoRenewProductId": "com.example.monthly", "autoRenewStatus": 1,
            "signedDate": 1_799_000_100_000,
        ]
        object["environment"] = environment
        return sign(object)
    }

    static func appTransaction(bundle: String = app, receiptType: String = "Production") -> String {
        sign([
            "bundleId": bundle, "appAppleId": appleID, "receiptType": receiptType, "applicationVersion": "1",
            "originalApplicationVersion": "1", "receiptCreationDate": 1_799_000_100_000,
            "originalPurchaseDate": 1_799_000_000_000,
        ])
    }

    /// A notification whose `part` ("data", "summary", "externalPurchaseToken", "appData") is `fields`.
    static func notification(_ fields: [String: Any], part: String = "data") -> String {
        sign([
            "notificationType": "DID_RENEW", "notificationUUID": UUID().uuidString, "version": "2.0",
            "signedDate": 1_799_000_100_000, part: fields,
        ])
    }

    /// `data` for `app` in production, with the nested data given, and `changes` on top (NSNull removes).
    static func data(
        _ changes: [String: Any] = [:], transaction: String? = transaction(), renewal: String? = renewalInfo()
    ) -> [String: Any] {
        var data: [String: Any] = ["bundleId": app, "appAppleId": appleID, "environment": "Production"]
        data["signedTransactionInfo"] = transaction
        data["signedRenewalInfo"] = renewal
        for (key, value) in changes { data[key] = value is NSNull ? nil : value }
        return data
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var jws: String
        var environment: AppStoreEnvironment
        var apple: AppleVerdict
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // Controls: the same data with the right values.
        Case(
            name: "control: production, right app and Apple ID", jws: notification(data()), environment: .production,
            apple: .accepted),
        Case(
            name: "control: the second accepted app with its own Apple ID",
            jws: notification(
                data(["bundleId": otherApp, "appAppleId": otherAppleID], transaction: transaction(bundle: otherApp))),
            environment: .production, apple: .accepted),
        Case(
            name: "control: sandbox without appAppleId (not checked in the sandbox)",
            jws: notification(
                data(
                    ["environment": "Sandbox", "appAppleId": NSNull()],
                    transaction: transaction(environment: "Sandbox"),
                    renewal: renewalInfo(environment: "Sandbox"))),
            environment: .sandbox, apple: .accepted),
        Case(
            name: "control: sandbox with another appAppleId (not checked in the sandbox)",
            jws: notification(
                data(
                    ["environment": "Sandbox", "appAppleId": 42], transaction: transaction(environment: "Sandbox"),
                    renewal: renewalInfo(environment: "Sandbox"))),
            environment: .sandbox, apple: .accepted),
        Case(
            name: "control: a summary for the app",
            jws: notification(
                ["bundleId": app, "appAppleId": appleID, "environment": "Production", "succeededCount": 3],
                part: "summary"),
            environment: .production, apple: .accepted),
        Case(
            name: "control: an external purchase token for the app",
            jws: notification(
                ["bundleId": app, "appAppleId": appleID, "externalPurchaseId": "b2158121"],
                part: "externalPurchaseToken"),
            environment: .production, apple: .accepted),
        Case(
            name: "control: a transaction in the renewal info slot (Apple checks renewal info's environment only)",
            jws: notification(data(renewal: transaction())), environment: .production, apple: .accepted),
        // Refused: whose it is.
        Case(
            name: "foreign bundle", jws: notification(data(["bundleId": "com.someone.else"])),
            environment: .production, apple: .invalidAppIdentifier),
        Case(
            name: "no bundle id", jws: notification(data(["bundleId": NSNull()])), environment: .production,
            apple: .invalidAppIdentifier),
        Case(
            name: "foreign appAppleId in production", jws: notification(data(["appAppleId": 999_999])),
            environment: .production, apple: .invalidAppIdentifier),
        Case(
            name: "another accepted app's appAppleId in production",
            jws: notification(data(["appAppleId": otherAppleID])), environment: .production,
            apple: .invalidAppIdentifier),
        Case(
            name: "no appAppleId in production", jws: notification(data(["appAppleId": NSNull()])),
            environment: .production, apple: .invalidAppIdentifier),
        Case(
            name: "a summary for another app",
            jws: notification(
                ["bundleId": "com.someone.else", "appAppleId": appleID, "environment": "Production"],
                part: "summary"),
            environment: .production, apple: .invalidAppIdentifier),
        // Refused: the environment.
        Case(
            name: "a sandbox notification asked in production",
            jws: notification(data(["environment": "Sandbox"])), environment: .production, apple: .invalidEnvironment),
        Case(
            name: "no environment", jws: notification(data(["environment": NSNull()])), environment: .production,
            apple: .invalidEnvironment),
        Case(
            name: "a SANDBOX external purchase token asked in production",
            jws: notification(
                ["bundleId": app, "appAppleId": appleID, "externalPurchaseId": "SANDBOX_b2158121"],
                part: "externalPurchaseToken"),
            environment: .production, apple: .invalidEnvironment),
        // Refused: the nested data.
        Case(
            name: "nested transaction of another environment",
            jws: notification(data(transaction: transaction(environment: "Sandbox"))), environment: .production,
            apple: .invalidEnvironment),
        Case(
            name: "nested transaction without environment",
            jws: notification(data(transaction: transaction(environment: nil))), environment: .production,
            apple: .invalidEnvironment),
        Case(
            name: "nested renewal info of another environment",
            jws: notification(data(renewal: renewalInfo(environment: "Sandbox"))), environment: .production,
            apple: .invalidEnvironment),
        Case(
            name: "nested transaction of another app",
            jws: notification(data(transaction: transaction(bundle: "com.someone.else"))), environment: .production,
            apple: .invalidAppIdentifier),
        Case(
            name: "nested transaction of the other accepted app",
            jws: notification(data(transaction: transaction(bundle: otherApp))), environment: .production,
            apple: .invalidAppIdentifier),
        Case(
            name: "renewal info in the transaction slot", jws: notification(data(transaction: renewalInfo())),
            environment: .production, apple: .invalidAppIdentifier),
        Case(
            name: "app transaction in the transaction slot", jws: notification(data(transaction: appTransaction())),
            environment: .production, apple: .invalidEnvironment),
    ]

    static let client = ServerAPIClient(
        configuration: ServerAPIClient.Configuration(
            productionURL: URL(string: "http://apple.invalid/production")!,
            sandboxURL: URL(string: "http://apple.invalid/sandbox")!),
        verifier: SignedDataVerifier(anchors: [TrustAnchor(chain.root)]))

    @Test(arguments: cases)
    func theJobBelievesANotificationExactlyWhenApplesVerifierDoes(_ test: Case) {
        let result = Self.client.notification(test.jws, for: Self.audience(test.environment))
        switch (result, test.apple) {
        case (.success, .accepted): break
        case (.success, let apple): Issue.record("believed; Apple's verifier refuses it \(apple.rawValue)")
        case (.failure(let rejected), .accepted): Issue.record("refused (\(rejected.detail)); Apple accepts it")
        case (.failure(let rejected), let apple):
            #expect(rejected.detail.contains(apple.rawValue), "\(rejected.detail)")
        }
    }

    /// Apple's verifier cannot be made for production without the app's Apple ID (a `ValueError`): nothing
    /// is believed for an app whose id is not configured.
    @Test func anAppWithoutAConfiguredAppleIDIsNeverBelievedInProduction() {
        let audience = NotificationAudience(
            acceptedBundleIDs: [Self.app], appAppleIDs: [:], environment: .production)
        guard case .failure(let rejected) = Self.client.notification(Self.notification(Self.data()), for: audience)
        else {
            Issue.record("believed without the app's Apple ID")
            return
        }
        #expect(rejected.detail.contains("APPLE_APP_APPLE_IDS"), "\(rejected.detail)")
    }
}
