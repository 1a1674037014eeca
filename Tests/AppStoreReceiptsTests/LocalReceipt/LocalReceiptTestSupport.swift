import AppStoreReceipts
import Foundation

/// Receipts built in code, covering every field the decoder reads.
enum LocalReceiptSamples {
    static func date(_ text: String) -> Date {
        // Test-only: the literals below are valid; a typo fails loudly here.
        guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test date \(text)") }
        return date
    }

    static let subscription = LocalReceipt.InAppPurchase(
        quantity: 1,
        productID: "com.example.pro.monthly",
        transactionID: "2000000123456789",
        purchaseDate: date("2024-02-23T17:27:16Z"),
        originalTransactionID: "2000000123400000",
        originalPurchaseDate: date("2023-11-23T17:27:16Z"),
        productType: 3,
        expiresDate: date("2024-03-23T17:27:16Z"),
        webOrderLineItemID: "2000000054321098",
        cancellationDate: nil,
        isTrialPeriod: false,
        isInIntroOfferPeriod: true,
        promotionalOfferID: "spring-offer"
    )

    static let consumable = LocalReceipt.InAppPurchase(
        quantity: 3,
        productID: "com.example.coins",
        transactionID: "2000000123456790",
        purchaseDate: Date(timeIntervalSince1970: 1_708_709_236.25),
        originalTransactionID: "2000000123456790",
        originalPurchaseDate: Date(timeIntervalSince1970: 1_708_709_236.25)
    )

    static let refunded = LocalReceipt.InAppPurchase(
        quantity: 1,
        productID: "com.example.lifetime",
        transactionID: "2000000123456791",
        purchaseDate: date("2022-01-01T00:00:00Z"),
        originalTransactionID: "2000000123456791",
        originalPurchaseDate: date("2022-01-01T00:00:00Z"),
        productType: 0,
        cancellationDate: date("2022-01-02T08:00:00Z"),
        isTrialPeriod: false,
        isInIntroOfferPeriod: false
    )

    static let appReceipt = LocalReceipt(
        format: .appReceipt,
        environment: "ProductionSandbox",
        appItemID: 0,
        bundleID: "com.example.app",
        applicationVersion: "42",
        opaqueValue: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08],
        sha1Hash: Array(repeating: 0xAB, count: 20),
        creationDate: date("2024-02-23T17:30:00Z"),
        originalPurchaseDate: date("2013-08-01T07:00:00Z"),
        originalApplicationVersion: "1.0",
        inApp: [subscription, consumable, refunded]
    )

    static let transactionReceipt = LocalReceipt(
        format: .transactionReceipt,
        environment: "Sandbox",
        appItemID: 521_129_812,
        bundleID: "com.example.legacy",
        applicationVersion: "20120427",
        inApp: [
            LocalReceipt.InAppPurchase(
                quantity: 1,
                productID: "com.example.legacy.monthly",
                transactionID: "1000000046178817",
                purchaseDate: Date(timeIntervalSince1970: 1_335_798_355.868),
                originalTransactionID: "1000000046178800",
                originalPurchaseDate: Date(timeIntervalSince1970: 1_335_000_000),
                expiresDate: Date(timeIntervalSince1970: 1_337_798_355),
                webOrderLineItemID: "1000000000123456",
                isTrialPeriod: true,
                isInIntroOfferPeriod: false
            )
        ]
    )

    /// A decoded receipt without the fields only decoding fills in, for equality with inputs.
    static func comparable(_ receipt: LocalReceipt) -> LocalReceipt {
        var copy = receipt
        copy.containerByteCount = nil
        copy.bundleIDValueDER = nil
        copy.inApp.sort { ($0.transactionID ?? "") < ($1.transactionID ?? "") }
        return copy
    }
}
