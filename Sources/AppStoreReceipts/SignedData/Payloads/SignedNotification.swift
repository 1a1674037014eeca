import Foundation

/// A decoded `ResponseBodyV2DecodedPayload`: an App Store Server Notification V2 (`signedPayload`).
///
/// A notification carries exactly one of `data` (about a purchase), `summary` (the outcome of a
/// bulk renewal extension), `externalPurchaseToken` or `appData` (about the app). The nested
/// signed data (`data.signedTransactionInfo`, `data.signedRenewalInfo`,
/// `appData.signedAppTransactionInfo`) is kept as the compact JWS Apple sent: it is believed only
/// after it has been verified in turn (`nestedSignedData` lists it).
public struct SignedNotification: Hashable, Sendable {
    public var notificationType: NotificationType?
    public var subtype: Subtype?
    public var notificationUUID: String?
    public var version: String?
    public var signedDate: Date?
    public var data: NotificationData?
    public var summary: Summary?
    public var externalPurchaseToken: ExternalPurchaseToken?
    public var appData: AppData?

    public init(
        notificationType: NotificationType? = nil, subtype: Subtype? = nil, notificationUUID: String? = nil,
        version: String? = nil, signedDate: Date? = nil, data: NotificationData? = nil, summary: Summary? = nil,
        externalPurchaseToken: ExternalPurchaseToken? = nil, appData: AppData? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.version = version
        self.signedDate = signedDate
        self.data = data
        self.summary = summary
        self.externalPurchaseToken = externalPurchaseToken
        self.appData = appData
    }

    init(_ json: AppleJSONObject) {
        self.init(
            notificationType: json.appleString("notificationType").map(NotificationType.init),
            subtype: json.appleString("subtype").map(Subtype.init),
            notificationUUID: json.appleString("notificationUUID"),
            version: json.appleString("version"),
            signedDate: json.unixMillisecondsDate("signedDate"),
            data: json.signedObject("data").map(NotificationData.init),
            summary: json.signedObject("summary").map(Summary.init),
            externalPurchaseToken: json.signedObject("externalPurchaseToken").map(ExternalPurchaseToken.init),
            appData: json.signedObject("appData").map(AppData.init)
        )
    }

    /// The environment, bundle id and app Apple id a verifier checks, from the first part present
    /// in the order of Apple's `SignedDataVerifier.verify_and_decode_notification`: `data`, `summary`,
    /// `externalPurchaseToken`, `appData`. The first part present answers all three, even with a
    /// field missing: a notification has one part.
    public var environment: SignedEnvironment? {
        if let data { return data.environment }
        if let summary { return summary.environment }
        if let externalPurchaseToken { return externalPurchaseToken.environment }
        return appData?.environment
    }

    /// See `environment`.
    public var bundleID: String? {
        if let data { return data.bundleID }
        if let summary { return summary.bundleID }
        if let externalPurchaseToken { return externalPurchaseToken.bundleID }
        return appData?.bundleID
    }

    /// See `environment`. A production verifier requires it (research/server-api.md §5 step 8).
    public var appAppleID: Int64? {
        if let data { return data.appAppleID }
        if let summary { return summary.appAppleID }
        if let externalPurchaseToken { return externalPurchaseToken.appAppleID }
        return appData?.appAppleID
    }

    /// The nested JWS to verify and decode, in the order `inspect` prints them, each with the
    /// format it must have.
    public var nestedSignedData: [(format: SignedDataFormat, jws: String)] {
        var nested: [(format: SignedDataFormat, jws: String)] = []
        if let jws = data?.signedTransactionInfo { nested.append((.transaction, jws)) }
        if let jws = data?.signedRenewalInfo { nested.append((.renewalInfo, jws)) }
        if let jws = appData?.signedAppTransactionInfo { nested.append((.appTransaction, jws)) }
        return nested
    }
}
