import Foundation

/// A decoded `AppTransaction`: the purchase of the app itself (`AppTransaction.jwsRepresentation`,
/// `appData.signedAppTransactionInfo`).
///
/// Every field is optional, as for `SignedTransaction`. The environment is `receiptType`, and the
/// instant a verifier checks certificates at is `signedDate` when the payload has one, else
/// `receiptCreationDate`, the JSON name Apple documents `AppTransaction.signedDate` under.
public struct SignedAppTransaction: Hashable, Sendable {
    /// The environment (`Production`, `Sandbox`, `Xcode`…).
    public var receiptType: SignedEnvironment?
    public var appAppleID: Int64?
    public var bundleID: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int64?
    public var receiptCreationDate: Date?
    /// Xcode writes `Date.distantPast` (-62135769600000 ms) when there is none.
    public var originalPurchaseDate: Date?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var preorderDate: Date?
    public var appTransactionID: String?
    public var originalPlatform: Platform?
    /// `signedDate`, which Apple's app transactions so far carry as `receiptCreationDate`.
    public var signedDate: Date?

    public init(
        receiptType: SignedEnvironment? = nil, appAppleID: Int64? = nil, bundleID: String? = nil,
        applicationVersion: String? = nil, versionExternalIdentifier: Int64? = nil, receiptCreationDate: Date? = nil,
        originalPurchaseDate: Date? = nil, originalApplicationVersion: String? = nil,
        deviceVerification: String? = nil, deviceVerificationNonce: String? = nil, preorderDate: Date? = nil,
        appTransactionID: String? = nil, originalPlatform: Platform? = nil, signedDate: Date? = nil
    ) {
        self.receiptType = receiptType
        self.appAppleID = appAppleID
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.preorderDate = preorderDate
        self.appTransactionID = appTransactionID
        self.originalPlatform = originalPlatform
        self.signedDate = signedDate
    }

    init(_ json: AppleJSONObject) {
        self.init(
            receiptType: json.appleString("receiptType").map(SignedEnvironment.init),
            appAppleID: json.signedInt64("appAppleId"),
            bundleID: json.appleString("bundleId"),
            applicationVersion: json.appleString("applicationVersion"),
            versionExternalIdentifier: json.signedInt64("versionExternalIdentifier"),
            receiptCreationDate: json.unixMillisecondsDate("receiptCreationDate"),
            originalPurchaseDate: json.unixMillisecondsDate("originalPurchaseDate"),
            originalApplicationVersion: json.appleString("originalApplicationVersion"),
            deviceVerification: json.appleString("deviceVerification"),
            deviceVerificationNonce: json.appleString("deviceVerificationNonce"),
            preorderDate: json.unixMillisecondsDate("preorderDate"),
            appTransactionID: json.appleString("appTransactionId"),
            originalPlatform: json.appleString("originalPlatform").map(Platform.init),
            signedDate: json.unixMillisecondsDate("signedDate")
        )
    }

    /// `originalPlatform`, kept as Apple's raw value (see `SignedTransaction+Kinds`).
    public struct Platform: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let iOS = Platform(rawValue: "iOS")
        public static let macOS = Platform(rawValue: "macOS")
        public static let tvOS = Platform(rawValue: "tvOS")
        public static let visionOS = Platform(rawValue: "visionOS")
    }
}
