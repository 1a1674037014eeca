import Foundation

/// What a receipt says about itself, read locally without asking Apple.
///
/// Nothing here is verified: the signature is not checked. The job uses local decoding only
/// where Apple cannot answer (21002 that persists), for `receipt-recon inspect`, and to spot
/// Xcode test receipts; Apple stays the authority on everything else (CONTRACT §5).
///
/// Two formats exist. An app receipt (iOS 7+) is a PKCS#7 container whose payload lists every
/// purchase in `inApp`. An iOS 6 transaction receipt describes a single purchase; it is
/// presented in the same shape, with that purchase as the only `inApp` entry.
public struct LocalReceipt: Sendable, Hashable {
    /// The two receipt formats; raw values are the `format` of `inspect` output.
    public enum Format: String, Sendable, Hashable {
        /// PKCS#7 app receipt (iOS 7 and later).
        case appReceipt = "app_receipt"
        /// iOS 6 `SKPaymentTransaction.transactionReceipt`: base64 of an OpenStep plist text.
        case transactionReceipt = "transaction_receipt"
    }

    /// Which store issued the receipt, as far as the receipt itself claims.
    public enum Environment: Sendable, Hashable {
        case production
        case sandbox
        /// Xcode's StoreKit testing; such receipts are never valid for the App Store.
        case xcode
        /// A value this decoder does not know, or none at all (app receipts without attribute 0).
        case unrecognized

        /// Classifies the value of attribute 0 or of the iOS 6 `environment` key.
        public init(receiptType: String?) {
            switch receiptType {
            case "Production", "ProductionVPP": self = .production
            case "ProductionSandbox", "ProductionVPPSandbox", "Sandbox": self = .sandbox
            case "Xcode": self = .xcode
            default: self = .unrecognized
            }
        }
    }

    public var format: Format
    /// The environment exactly as the receipt carries it: attribute 0 of an app receipt
    /// (`Production`, `ProductionSandbox`, `Xcode`, `ProductionVPP`, `ProductionVPPSandbox`), or
    /// the `environment` key of an iOS 6 receipt (`Sandbox`). iOS 6 production receipts omit
    /// that key, so its absence reads as `Production`.
    public var environment: String?
    /// App Store id of the app (attribute 1; 0 in sandbox and Xcode receipts).
    public var appItemID: Int64?
    /// Attribute 2, or `bid` of an iOS 6 receipt.
    public var bundleID: String?
    /// Attribute 3 (`CFBundleVersion` at purchase), or `bvrs` of an iOS 6 receipt.
    public var applicationVersion: String?
    /// Attribute 4, the opaque value hashed into `sha1Hash`.
    public var opaqueValue: [UInt8]?
    /// Attribute 5: SHA-1 of device GUID, `opaqueValue` and `bundleIDValueDER`.
    public var sha1Hash: [UInt8]?
    /// The DER value of attribute 2 exactly as stored, which is what `sha1Hash` covers.
    public var bundleIDValueDER: [UInt8]?
    /// Attribute 12.
    public var creationDate: Date?
    /// Attribute 18.
    public var originalPurchaseDate: Date?
    /// Attribute 19.
    public var originalApplicationVersion: String?
    /// Attribute 21 (volume purchase and Xcode receipts).
    public var expirationDate: Date?
    /// One entry per attribute 17, in stored order (a SET: the order means nothing).
    public var inApp: [InAppPurchase]
    /// Size of the PKCS#7 container in bytes (nil for iOS 6 receipts).
    public var containerByteCount: Int?

    public init(
        format: Format = .appReceipt,
        environment: String? = nil,
        appItemID: Int64? = nil,
        bundleID: String? = nil,
        applicationVersion: String? = nil,
        opaqueValue: [UInt8]? = nil,
        sha1Hash: [UInt8]? = nil,
        bundleIDValueDER: [UInt8]? = nil,
        creationDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        originalApplicationVersion: String? = nil,
        expirationDate: Date? = nil,
        inApp: [InAppPurchase] = [],
        containerByteCount: Int? = nil
    ) {
        self.format = format
        self.environment = environment
        self.appItemID = appItemID
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.bundleIDValueDER = bundleIDValueDER
        self.creationDate = creationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.expirationDate = expirationDate
        self.inApp = inApp
        self.containerByteCount = containerByteCount
    }

    /// `environment` classified.
    public var environmentKind: Environment { Environment(receiptType: environment) }

    /// True for receipts made by Xcode's StoreKit testing, which the job treats as invalid.
    public var isXcodeTestReceipt: Bool { environmentKind == .xcode }
}

extension LocalReceipt {
    /// One purchase: an attribute 17 of an app receipt, or the `purchase-info` of an iOS 6 one.
    public struct InAppPurchase: Sendable, Hashable {
        /// 1701.
        public var quantity: Int?
        /// 1702.
        public var productID: String?
        /// 1703. Kept as text: ids reach 16 digits and Xcode writes "0".
        public var transactionID: String?
        /// 1704.
        public var purchaseDate: Date?
        /// 1705.
        public var originalTransactionID: String?
        /// 1706.
        public var originalPurchaseDate: Date?
        /// 1707 (undocumented; 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable
        /// according to RevenueCat).
        public var productType: Int?
        /// 1708.
        public var expiresDate: Date?
        /// 1711, as decimal text.
        public var webOrderLineItemID: String?
        /// 1712: set when Apple refunded the purchase.
        public var cancellationDate: Date?
        /// 1713 (undocumented).
        public var isTrialPeriod: Bool?
        /// 1719.
        public var isInIntroOfferPeriod: Bool?
        /// 1721 (undocumented).
        public var promotionalOfferID: String?

        public init(
            quantity: Int? = nil,
            productID: String? = nil,
            transactionID: String? = nil,
            purchaseDate: Date? = nil,
            originalTransactionID: String? = nil,
            originalPurchaseDate: Date? = nil,
            productType: Int? = nil,
            expiresDate: Date? = nil,
            webOrderLineItemID: String? = nil,
            cancellationDate: Date? = nil,
            isTrialPeriod: Bool? = nil,
            isInIntroOfferPeriod: Bool? = nil,
            promotionalOfferID: String? = nil
        ) {
            self.quantity = quantity
            self.productID = productID
            self.transactionID = transactionID
            self.purchaseDate = purchaseDate
            self.originalTransactionID = originalTransactionID
            self.originalPurchaseDate = originalPurchaseDate
            self.productType = productType
            self.expiresDate = expiresDate
            self.webOrderLineItemID = webOrderLineItemID
            self.cancellationDate = cancellationDate
            self.isTrialPeriod = isTrialPeriod
            self.isInIntroOfferPeriod = isInIntroOfferPeriod
            self.promotionalOfferID = promotionalOfferID
        }
    }
}
