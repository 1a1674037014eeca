/// Attribute type numbers of the app receipt payload (research/verifyreceipt.md §7.3, §7.4).
///
/// Apple documents only some of them; the rest are the names TPInAppReceipt and RevenueCat use.
/// Types not listed here are skipped by the decoder.
enum LocalReceiptAttributeType {
    // Top level.
    static let receiptType = 0
    static let appItemID = 1
    static let bundleID = 2
    static let applicationVersion = 3
    static let opaqueValue = 4
    static let sha1Hash = 5
    static let creationDate = 12
    static let inAppPurchase = 17
    static let originalPurchaseDate = 18
    static let originalApplicationVersion = 19
    static let expirationDate = 21

    // Inside each type-17 in-app purchase.
    static let quantity = 1701
    static let productID = 1702
    static let transactionID = 1703
    static let purchaseDate = 1704
    static let originalTransactionID = 1705
    static let inAppOriginalPurchaseDate = 1706
    static let productType = 1707
    static let expiresDate = 1708
    static let webOrderLineItemID = 1711
    static let cancellationDate = 1712
    static let isTrialPeriod = 1713
    static let isInIntroOfferPeriod = 1719
    static let promotionalOfferID = 1721

    /// " (bundle id)" for error messages, or "" for a type without a known name.
    static func label(for type: Int) -> String {
        let name: String? =
            switch type {
            case receiptType: "receipt type"
            case appItemID: "app item id"
            case bundleID: "bundle id"
            case applicationVersion: "application version"
            case opaqueValue: "opaque value"
            case sha1Hash: "SHA-1 hash"
            case creationDate: "creation date"
            case inAppPurchase: "in-app purchase"
            case originalPurchaseDate: "original purchase date"
            case originalApplicationVersion: "original application version"
            case expirationDate: "expiration date"
            case quantity: "quantity"
            case productID: "product id"
            case transactionID: "transaction id"
            case purchaseDate: "purchase date"
            case originalTransactionID: "original transaction id"
            case inAppOriginalPurchaseDate: "original purchase date"
            case productType: "product type"
            case expiresDate: "expires date"
            case webOrderLineItemID: "web order line item id"
            case cancellationDate: "cancellation date"
            case isTrialPeriod: "is trial period"
            case isInIntroOfferPeriod: "is in intro offer period"
            case promotionalOfferID: "promotional offer id"
            default: nil
            }
        return name.map { " (\($0))" } ?? ""
    }
}
