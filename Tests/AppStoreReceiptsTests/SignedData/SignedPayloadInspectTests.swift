import AppStoreReceipts
import Foundation
import Testing

/// The `payload` object `receipt-recon inspect` prints for signed data (CONTRACT §3): Apple's
/// field names in research §6 order, ISO 8601 UTC dates, prices as decimals, raw coded values.
@Suite struct SignedPayloadInspectTests {
    static func date(_ milliseconds: Double) -> Date {
        Date(timeIntervalSince1970: milliseconds / 1_000)
    }

    static func keys(_ object: InspectJSON) -> [String] {
        guard case .object(let members) = object else { return [] }
        return members.map(\.key)
    }

    @Test func appTransactionPrintsExactly() {
        let app = SignedAppTransaction(
            receiptType: .xcode, appAppleID: 531_412, bundleID: "com.example", applicationVersion: "1",
            receiptCreationDate: Self.date(1_697_680_122_257.447), originalPurchaseDate: Self.date(-62_135_769_600_000),
            originalApplicationVersion: "1", deviceVerificationNonce: "48c8b92d", originalPlatform: .iOS
        )
        #expect(
            app.inspectObject.rendered(pretty: true) == """
                {
                  "receiptType": "Xcode",
                  "appAppleId": 531412,
                  "bundleId": "com.example",
                  "applicationVersion": "1",
                  "versionExternalIdentifier": null,
                  "receiptCreationDate": "2023-10-19T01:48:42.257Z",
                  "originalPurchaseDate": "0001-01-01T00:00:00Z",
                  "originalApplicationVersion": "1",
                  "deviceVerification": null,
                  "deviceVerificationNonce": "48c8b92d",
                  "preorderDate": null,
                  "appTransactionId": null,
                  "originalPlatform": "iOS"
                }
                """)
    }

    @Test func notificationPrintsNestedDataInPlace() {
        let notification = SignedNotification(
            notificationType: .subscribed, subtype: SignedNotification.Subtype(rawValue: "NEW_SUBTYPE"),
            notificationUUID: "u", version: "2.0", signedDate: Self.date(1_698_148_900_000),
            data: .init(
                environment: .sandbox, appAppleID: 7, bundleID: "b", signedTransactionInfo: "jws.t.1",
                signedRenewalInfo: "jws.r.1", status: .billingGracePeriod)
        )
        var seen: [String] = []
        let rendered = notification.inspectObject { jws in
            seen.append(jws)
            return .object(["nested": .string(jws)])
        }.rendered(pretty: false)
        #expect(seen == ["jws.t.1", "jws.r.1"])
        #expect(
            rendered
                == #"{"notificationType":"SUBSCRIBED","subtype":"NEW_SUBTYPE","notificationUUID":"u","version":"2.0","#
                + #""signedDate":"2023-10-24T12:01:40Z","data":{"environment":"Sandbox","appAppleId":7,"bundleId":"b","#
                + #""bundleVersion":null,"signedTransactionInfo":{"nested":"jws.t.1"},"#
                + #""signedRenewalInfo":{"nested":"jws.r.1"},"status":4,"consumptionRequestReason":null},"#
                + #""summary":null,"externalPurchaseToken":null,"appData":null}"#)
    }

    @Test func transactionKeysFollowTheResearchOrder() {
        let object = SignedPayload.transaction(SignedTransaction()).inspectObject { _ in .null }
        #expect(
            Self.keys(object) == [
                "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
                "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity",
                "type",
                "inAppOwnershipType", "signedDate", "revocationDate", "revocationReason", "revocationType",
                "revocationPercentage", "isUpgraded", "offerType", "offerIdentifier", "offerDiscountType",
                "offerPeriod",
                "environment", "storefront", "storefrontId", "transactionReason", "price", "currency",
                "appAccountToken",
                "appTransactionId",
            ])
        guard case .object(let members) = object else { return }
        #expect(members.allSatisfy { $0.value == .null }, "absent values print null")
    }

    @Test func renewalInfoKeysFollowTheResearchOrder() {
        let object = SignedRenewalInfo().inspectObject
        #expect(
            Self.keys(object) == [
                "originalTransactionId", "productId", "autoRenewProductId", "autoRenewStatus", "expirationIntent",
                "isInBillingRetryPeriod", "gracePeriodExpiresDate", "priceIncreaseStatus", "renewalDate",
                "renewalPrice",
                "currency", "recentSubscriptionStartDate", "offerType", "offerIdentifier", "offerDiscountType",
                "offerPeriod", "eligibleWinBackOfferIds", "environment", "signedDate", "appAccountToken",
                "appTransactionId",
            ])
    }

    @Test func transactionValuesPrintInTheirContractShapes() {
        let transaction = SignedTransaction(
            transactionID: "23456", purchaseDate: Self.date(1_697_679_936_049.7297), quantity: 1,
            type: .init(rawValue: "Future Type"), revocationReason: .other, isUpgraded: false, offerType: .winBack,
            environment: .sandbox, price: 10_990, currency: "USD"
        )
        let rendered = transaction.inspectObject.rendered(pretty: false)
        for fragment in [
            #""transactionId":"23456""#, #""purchaseDate":"2023-10-19T01:45:36.050Z""#, #""quantity":1"#,
            #""type":"Future Type""#, #""revocationReason":0"#, #""isUpgraded":false"#, #""offerType":4"#,
            #""environment":"Sandbox""#, #""price":10.99,"currency":"USD""#,
        ] {
            #expect(rendered.contains(fragment), "\(fragment) in \(rendered)")
        }
    }

    @Test(arguments: [
        (Int64(10_990), "10.99"), (1_990, "1.99"), (1_000, "1"), (0, "0"), (-500, "-0.5"), (1, "0.001"),
        (9_223_372_036_854_775_807, "9223372036854775.807"),
    ])
    func pricesPrintAsExactDecimals(milliunits: Int64, text: String) {
        let renewalInfo = SignedRenewalInfo(renewalPrice: milliunits)
        #expect(InspectJSON.decimal(renewalInfo.renewalPriceAmount).rendered(pretty: false) == text)
    }

    @Test func eligibleOfferIdsPrintAsAnArray() {
        let renewalInfo = SignedRenewalInfo(eligibleWinBackOfferIDs: ["a", "b\"c"])
        #expect(
            renewalInfo.inspectObject.rendered(pretty: false).contains(#""eligibleWinBackOfferIds":["a","b\"c"]"#))
    }
}
