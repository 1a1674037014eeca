import Foundation

// The four parts a notification may carry. `appAppleId` is an `Int64` everywhere: Apple sends it
// as a JSON number; a string of digits is accepted, anything else reads as nil.

extension SignedNotification {
    /// `data`: a notification about a purchase or subscription.
    public struct NotificationData: Hashable, Sendable {
        public var environment: SignedEnvironment?
        public var appAppleID: Int64?
        public var bundleID: String?
        public var bundleVersion: String?
        /// A nested JWS (`SignedTransaction`), unverified.
        public var signedTransactionInfo: String?
        /// A nested JWS (`SignedRenewalInfo`), unverified.
        public var signedRenewalInfo: String?
        public var status: SubscriptionStatus?
        public var consumptionRequestReason: ConsumptionRequestReason?

        public init(
            environment: SignedEnvironment? = nil, appAppleID: Int64? = nil, bundleID: String? = nil,
            bundleVersion: String? = nil, signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil,
            status: SubscriptionStatus? = nil, consumptionRequestReason: ConsumptionRequestReason? = nil
        ) {
            self.environment = environment
            self.appAppleID = appAppleID
            self.bundleID = bundleID
            self.bundleVersion = bundleVersion
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
            self.status = status
            self.consumptionRequestReason = consumptionRequestReason
        }

        init(_ json: AppleJSONObject) {
            self.init(
                environment: json.appleString("environment").map(SignedEnvironment.init),
                appAppleID: json.signedInt64("appAppleId"),
                bundleID: json.appleString("bundleId"),
                bundleVersion: json.appleString("bundleVersion"),
                signedTransactionInfo: json.appleString("signedTransactionInfo"),
                signedRenewalInfo: json.appleString("signedRenewalInfo"),
                status: json.signedInt("status").map(SubscriptionStatus.init),
                consumptionRequestReason: json.appleString("consumptionRequestReason")
                    .map(ConsumptionRequestReason.init)
            )
        }
    }

    /// `summary`: the outcome of a renewal date extension for all subscribers.
    public struct Summary: Hashable, Sendable {
        public var requestIdentifier: String?
        public var environment: SignedEnvironment?
        public var appAppleID: Int64?
        public var bundleID: String?
        public var productID: String?
        /// ISO 3166-1 alpha-3 codes.
        public var storefrontCountryCodes: [String]?
        public var failedCount: Int64?
        public var succeededCount: Int64?

        public init(
            requestIdentifier: String? = nil, environment: SignedEnvironment? = nil, appAppleID: Int64? = nil,
            bundleID: String? = nil, productID: String? = nil, storefrontCountryCodes: [String]? = nil,
            failedCount: Int64? = nil, succeededCount: Int64? = nil
        ) {
            self.requestIdentifier = requestIdentifier
            self.environment = environment
            self.appAppleID = appAppleID
            self.bundleID = bundleID
            self.productID = productID
            self.storefrontCountryCodes = storefrontCountryCodes
            self.failedCount = failedCount
            self.succeededCount = succeededCount
        }

        init(_ json: AppleJSONObject) {
            self.init(
                requestIdentifier: json.appleString("requestIdentifier"),
                environment: json.appleString("environment").map(SignedEnvironment.init),
                appAppleID: json.signedInt64("appAppleId"),
                bundleID: json.appleString("bundleId"),
                productID: json.appleString("productId"),
                storefrontCountryCodes: json.signedStringArray("storefrontCountryCodes"),
                failedCount: json.signedInt64("failedCount"),
                succeededCount: json.signedInt64("succeededCount")
            )
        }
    }

    /// `externalPurchaseToken`: an external purchase token was created or went unreported.
    public struct ExternalPurchaseToken: Hashable, Sendable {
        public var externalPurchaseID: String?
        public var tokenCreationDate: Date?
        public var appAppleID: Int64?
        public var bundleID: String?

        public init(
            externalPurchaseID: String? = nil, tokenCreationDate: Date? = nil, appAppleID: Int64? = nil,
            bundleID: String? = nil
        ) {
            self.externalPurchaseID = externalPurchaseID
            self.tokenCreationDate = tokenCreationDate
            self.appAppleID = appAppleID
            self.bundleID = bundleID
        }

        init(_ json: AppleJSONObject) {
            self.init(
                externalPurchaseID: json.appleString("externalPurchaseId"),
                tokenCreationDate: json.unixMillisecondsDate("tokenCreationDate"),
                appAppleID: json.signedInt64("appAppleId"),
                bundleID: json.appleString("bundleId")
            )
        }

        /// The token carries no `environment`: Apple's library (`verify_and_decode_notification`) reads
        /// Sandbox when `externalPurchaseId` starts with `SANDBOX`, and Production otherwise, a token
        /// without an id included.
        public var environment: SignedEnvironment {
            externalPurchaseID?.hasPrefix("SANDBOX") == true ? .sandbox : .production
        }
    }

    /// `appData`: a notification about the app rather than a purchase (`RESCIND_CONSENT`).
    public struct AppData: Hashable, Sendable {
        public var appAppleID: Int64?
        public var bundleID: String?
        public var environment: SignedEnvironment?
        /// A nested JWS (`SignedAppTransaction`), unverified.
        public var signedAppTransactionInfo: String?

        public init(
            appAppleID: Int64? = nil, bundleID: String? = nil, environment: SignedEnvironment? = nil,
            signedAppTransactionInfo: String? = nil
        ) {
            self.appAppleID = appAppleID
            self.bundleID = bundleID
            self.environment = environment
            self.signedAppTransactionInfo = signedAppTransactionInfo
        }

        init(_ json: AppleJSONObject) {
            self.init(
                appAppleID: json.signedInt64("appAppleId"),
                bundleID: json.appleString("bundleId"),
                environment: json.appleString("environment").map(SignedEnvironment.init),
                signedAppTransactionInfo: json.appleString("signedAppTransactionInfo")
            )
        }
    }
}
