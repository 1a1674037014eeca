import AppStoreReceipts
import Foundation
import Testing

/// `receipt-recon inspect` output is part of the contract (CONTRACT §3): exact keys, order,
/// types and date format.
@Suite struct LocalReceiptInspectJSONTests {
    static let receipt = LocalReceipt(
        format: .appReceipt,
        environment: "Production",
        bundleID: "com.example.app",
        applicationVersion: "15741",
        creationDate: LocalReceiptSamples.date("2024-02-23T17:27:16Z"),
        originalApplicationVersion: "434",
        inApp: [
            LocalReceipt.InAppPurchase(
                quantity: 1, productID: "com.example.week", transactionID: "340001237736590",
                purchaseDate: Date(timeIntervalSince1970: 1_708_709_236.25),
                originalTransactionID: "340001196262039",
                originalPurchaseDate: LocalReceiptSamples.date("2023-11-01T00:00:00Z"),
                expiresDate: LocalReceiptSamples.date("2024-03-01T17:27:16Z"),
                webOrderLineItemID: "340000544112345", isTrialPeriod: false, isInIntroOfferPeriod: true
            ),
            LocalReceipt.InAppPurchase(productID: "com.example.coins"),
        ]
    )

    @Test func prettyOutputIsExact() {
        #expect(
            Self.receipt.inspectJSON() == """
                {
                  "format": "app_receipt",
                  "bundle_id": "com.example.app",
                  "environment": "Production",
                  "application_version": "15741",
                  "original_application_version": "434",
                  "creation_date": "2024-02-23T17:27:16Z",
                  "in_app": [
                    {
                      "product_id": "com.example.week",
                      "transaction_id": "340001237736590",
                      "original_transaction_id": "340001196262039",
                      "purchase_date": "2024-02-23T17:27:16.250Z",
                      "original_purchase_date": "2023-11-01T00:00:00Z",
                      "expires_date": "2024-03-01T17:27:16Z",
                      "cancellation_date": null,
                      "quantity": 1,
                      "web_order_line_item_id": "340000544112345",
                      "is_trial_period": false,
                      "is_in_intro_offer_period": true
                    },
                    {
                      "product_id": "com.example.coins",
                      "transaction_id": null,
                      "original_transaction_id": null,
                      "purchase_date": null,
                      "original_purchase_date": null,
                      "expires_date": null,
                      "cancellation_date": null,
                      "quantity": null,
                      "web_order_line_item_id": null,
                      "is_trial_period": null,
                      "is_in_intro_offer_period": null
                    }
                  ]
                }
                """)
    }

    @Test func compactOutputIsOneLineOfTheSameJSON() throws {
        let compact = Self.receipt.inspectJSON(pretty: false)
        #expect(!compact.contains("\n"))
        #expect(
            compact.hasPrefix(#"{"format":"app_receipt","bundle_id":"com.example.app","environment":"Production","#))
        let fromCompact = try JSONSerialization.jsonObject(with: Data(compact.utf8)) as? NSDictionary
        let fromPretty = try JSONSerialization.jsonObject(with: Data(Self.receipt.inspectJSON().utf8)) as? NSDictionary
        #expect(fromCompact != nil && fromCompact == fromPretty)
    }

    @Test func emptyReceipt() {
        let receipt = LocalReceipt(format: .transactionReceipt)
        #expect(
            receipt.inspectJSON(pretty: false)
                == #"{"format":"transaction_receipt","bundle_id":null,"environment":null,"application_version":null,"original_application_version":null,"creation_date":null,"in_app":[]}"#
        )
        #expect(receipt.inspectJSON().hasSuffix("\"in_app\": []\n}"))
    }

    @Test func stringsAreEscaped() throws {
        let bundle = "a\"b\\c\nd\te\u{01}f\u{7F}g\u{2028}é🎟"
        let json = LocalReceipt(bundleID: bundle).inspectJSON(pretty: false)
        #expect(json.contains(#""bundle_id":"a\"b\\c\nd\te\u0001f\u007fg\u2028é🎟""#))
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["bundle_id"] as? String == bundle)
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (0.001, "1970-01-01T00:00:00.001Z"),
        (1_335_798_355.868, "2012-04-30T15:05:55.868Z"),
        (-1.5, "1969-12-31T23:59:58.500Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
    ])
    func datesAreUTCWithMillisecondsOnlyWhenPresent(seconds: Double, expected: String) {
        let receipt = LocalReceipt(creationDate: Date(timeIntervalSince1970: seconds))
        #expect(receipt.inspectJSON(pretty: false).contains(#""creation_date":"\#(expected)""#))
    }
}
