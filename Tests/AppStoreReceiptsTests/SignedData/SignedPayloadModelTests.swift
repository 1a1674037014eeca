import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// The decoded payloads in Apple's library's models (shared/conformance/server-api/models) read
/// into every typed field; the fields Apple added since (`advancedCommerceInfo`,
/// `commitmentInfo`…) are ignored without harm.
@Suite(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
struct SignedPayloadModelTests {
    static func payload(_ model: String) throws -> SignedPayload {
        try SignedPayload.decode([UInt8](try Conformance.file("server-api/models/\(model).json")))
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
    }

    @Test func signedTransaction() throws {
        let payload = try Self.payload("signedTransaction")
        let expected = SignedTransaction(
            transactionID: "23456", originalTransactionID: "12345", webOrderLineItemID: "34343",
            bundleID: "com.example", productID: "com.example.product", subscriptionGroupIdentifier: "55555",
            purchaseDate: Self.date(1_698_148_900_000), originalPurchaseDate: Self.date(1_698_148_800_000),
            expiresDate: Self.date(1_698_149_000_000), quantity: 1, type: .autoRenewable,
            inAppOwnershipType: .purchased, signedDate: Self.date(1_698_148_900_000),
            revocationDate: Self.date(1_698_148_950_000), revocationReason: .appIssue, isUpgraded: true,
            offerType: .introductory, offerIdentifier: "abc.123", offerDiscountType: .payAsYouGo, offerPeriod: "P1Y",
            environment: .localTesting, storefront: "USA", storefrontID: "143441", transactionReason: .purchase,
            price: 10_990, currency: "USD", appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
            appTransactionID: "71134"
        )
        #expect(payload == .transaction(expected))
        #expect(expected.priceAmount == Decimal(string: "10.99"))
        #expect(payload.environment?.appStoreEnvironment == nil, "LocalTesting is no App Store environment")
        #expect(payload.appAppleID == nil)
    }

    @Test func signedTransactionWithRevocation() throws {
        guard case .transaction(let transaction) = try Self.payload("signedTransactionWithRevocation") else {
            Issue.record("not a transaction")
            return
        }
        #expect(transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 50_000)
        #expect(transaction.revocationReason == .appIssue)
        #expect(transaction.revocationDate == Self.date(1_698_148_950_000))
    }

    @Test func signedRenewalInfo() throws {
        let payload = try Self.payload("signedRenewalInfo")
        let expected = SignedRenewalInfo(
            originalTransactionID: "12345", productID: "com.example.product",
            autoRenewProductID: "com.example.product.2", autoRenewStatus: .on, expirationIntent: .customerCancelled,
            isInBillingRetryPeriod: true, gracePeriodExpiresDate: Self.date(1_698_148_900_000),
            priceIncreaseStatus: .noResponse, renewalDate: Self.date(1_698_148_850_000), renewalPrice: 9_990,
            currency: "USD", recentSubscriptionStartDate: Self.date(1_698_148_800_000), offerType: .promotional,
            offerIdentifier: "abc.123", offerDiscountType: .payAsYouGo, offerPeriod: "P1Y",
            eligibleWinBackOfferIDs: ["eligible1", "eligible2"], environment: .localTesting,
            signedDate: Self.date(1_698_148_800_000), appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
            appTransactionID: "71134"
        )
        #expect(payload == .renewalInfo(expected))
        #expect(expected.renewalPriceAmount == Decimal(string: "9.99"))
        #expect(payload.bundleID == nil)
    }

    @Test func signedNotification() throws {
        let payload = try Self.payload("signedNotification")
        let data = SignedNotification.NotificationData(
            environment: .localTesting, appAppleID: 41_234, bundleID: "com.example", bundleVersion: "1.2.3",
            signedTransactionInfo: "signed_transaction_info_value", signedRenewalInfo: "signed_renewal_info_value",
            status: .active
        )
        let expected = SignedNotification(
            notificationType: .subscribed, subtype: .initialBuy,
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
            version: "2.0", signedDate: Self.date(1_698_148_900_000), data: data
        )
        #expect(payload == .notification(expected))
        #expect(payload.environment == .localTesting)
        #expect(payload.bundleID == "com.example")
        #expect(payload.appAppleID == 41_234)
        #expect(
            expected.nestedSignedData.map { "\($0.format)=\($0.jws)" } == [
                "signed_transaction=signed_transaction_info_value", "signed_renewal_info=signed_renewal_info_value",
            ])
    }

    @Test func consumptionRequestNotification() throws {
        guard case .notification(let notification) = try Self.payload("signedConsumptionRequestNotification") else {
            Issue.record("not a notification")
            return
        }
        #expect(notification.notificationType == .consumptionRequest)
        #expect(notification.subtype == nil)
        #expect(notification.data?.consumptionRequestReason == .unintendedPurchase)
    }

    @Test func summaryNotification() throws {
        let payload = try Self.payload("signedSummaryNotification")
        let summary = SignedNotification.Summary(
            requestIdentifier: "efb27071-45a4-4aca-9854-2a1e9146f265", environment: .localTesting,
            appAppleID: 41_234, bundleID: "com.example", productID: "com.example.product",
            storefrontCountryCodes: ["CAN", "USA", "MEX"], failedCount: 2, succeededCount: 5
        )
        let expected = SignedNotification(
            notificationType: .renewalExtension, subtype: .summary,
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20", version: "2.0",
            signedDate: Self.date(1_698_148_900_000), summary: summary
        )
        #expect(payload == .notification(expected))
        #expect(payload.environment == .localTesting)
        #expect(payload.bundleID == "com.example")
        #expect(payload.appAppleID == 41_234)
        #expect(expected.nestedSignedData.isEmpty)
    }

    @Test(arguments: [
        ("signedExternalPurchaseTokenNotification", "b2158121-7af9-49d4-9561-1f588205523e", "Production"),
        ("signedExternalPurchaseTokenSandboxNotification", "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e", "Sandbox"),
    ])
    func externalPurchaseTokenNotification(model: String, purchaseID: String, environment: String) throws {
        let payload = try Self.payload(model)
        let token = SignedNotification.ExternalPurchaseToken(
            externalPurchaseID: purchaseID, tokenCreationDate: Self.date(1_698_148_950_000), appAppleID: 55_555,
            bundleID: "com.example"
        )
        let expected = SignedNotification(
            notificationType: .externalPurchaseToken, subtype: .unreported,
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20", version: "2.0",
            signedDate: Self.date(1_698_148_900_000), externalPurchaseToken: token
        )
        #expect(payload == .notification(expected))
        #expect(payload.environment == SignedEnvironment(rawValue: environment))
        #expect(payload.bundleID == "com.example")
        #expect(payload.appAppleID == 55_555)
    }

    @Test func rescindConsentNotificationCarriesAppData() throws {
        let payload = try Self.payload("signedRescindConsentNotification")
        guard case .notification(let notification) = payload else {
            Issue.record("not a notification")
            return
        }
        #expect(notification.notificationType == .rescindConsent)
        #expect(
            notification.appData
                == SignedNotification.AppData(
                    appAppleID: 41_234, bundleID: "com.example", environment: .localTesting,
                    signedAppTransactionInfo: "signed_app_transaction_info_value"))
        #expect(payload.environment == .localTesting)
        #expect(payload.appAppleID == 41_234)
        #expect(notification.nestedSignedData.map(\.format) == [.appTransaction])
    }

    @Test func appTransaction() throws {
        let payload = try Self.payload("appTransaction")
        let expected = SignedAppTransaction(
            receiptType: .localTesting, appAppleID: 531_412, bundleID: "com.example", applicationVersion: "1.2.3",
            versionExternalIdentifier: 512, receiptCreationDate: Self.date(1_698_148_900_000),
            originalPurchaseDate: Self.date(1_698_148_800_000), originalApplicationVersion: "1.1.2",
            deviceVerification: "device_verification_value",
            deviceVerificationNonce: "48ccfa42-7431-4f22-9908-7e88983e105a", preorderDate: Self.date(1_698_148_700_000),
            appTransactionID: "71134", originalPlatform: .iOS
        )
        #expect(payload == .appTransaction(expected))
        #expect(payload.signedDate == Self.date(1_698_148_900_000), "an app transaction is checked at its creation")
        #expect(payload.environment == .localTesting)
        #expect(payload.bundleID == "com.example")
        #expect(payload.appAppleID == 531_412)
    }
}
