/// Whom a notification must be for to be believed, as Apple's own `SignedDataVerifier`
/// (app-store-server-library-python, `signed_data_verifier.py`) decides it once the signature and chain
/// hold (CONTRACT §9 "Notification history"):
///
/// - `verify_and_decode_notification` reads bundle id, app Apple ID and environment from the first part
///   present (`SignedNotification.environment`), then refuses `INVALID_APP_IDENTIFIER` when the bundle id
///   is not the app's (here: not one of `APPLE_BUNDLE_IDS`, a missing one included) or, in production,
///   the app Apple ID is not that app's (`APPLE_APP_APPLE_IDS`; the sandbox does not check it), then
///   `INVALID_ENVIRONMENT` when the environment is not the one asked (a missing one included);
/// - the nested data is what `verify_and_decode_signed_transaction` (bundle id, then environment),
///   `verify_and_decode_renewal_info` (environment only) and `verify_and_decode_app_transaction`
///   (bundle id and production app Apple ID, then `receiptType`) accept, for the notification's own app.
///   Each slot is read as its own type, so data of another type fails as Apple's would: a renewal info
///   in `signedTransactionInfo` has no `bundleId`, an app transaction there no `environment`.
///
/// Pure: the verdict depends on the decoded payloads alone.
public struct NotificationAudience: Sendable, Hashable {
    /// `APPLE_BUNDLE_IDS`.
    public var acceptedBundleIDs: Set<String>
    /// `APPLE_APP_APPLE_IDS`: each app's Apple ID, by bundle id; read in production only.
    public var appAppleIDs: [String: Int64]
    /// The environment the history was asked in.
    public var environment: AppStoreEnvironment

    public init(acceptedBundleIDs: Set<String>, appAppleIDs: [String: Int64], environment: AppStoreEnvironment) {
        self.acceptedBundleIDs = acceptedBundleIDs
        self.appAppleIDs = appAppleIDs
        self.environment = environment
    }

    /// Why Apple's verifier refuses a notification, under Apple's `VerificationStatus` names.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        case invalidAppIdentifier(String)
        case invalidEnvironment(String)

        public var description: String {
            switch self {
            case .invalidAppIdentifier(let detail): "INVALID_APP_IDENTIFIER: \(detail)"
            case .invalidEnvironment(let detail): "INVALID_ENVIRONMENT: \(detail)"
            }
        }
    }

    /// Apple's verdict on `notification` and its nested data (each decoded as its slot's type, by
    /// `SignedNotification.nestedSignedData`'s field name), whose signatures and chains verified: nil
    /// when it is believed.
    public func refusal(
        of notification: SignedNotification, nested: [(field: String, payload: SignedPayload?)]
    ) -> Refusal? {
        let bundleID = notification.bundleID
        guard let bundleID, acceptedBundleIDs.contains(bundleID) else {
            return .invalidAppIdentifier(
                "notification for bundle id \(Self.shown(bundleID)), not one of APPLE_BUNDLE_IDS")
        }
        if let refusal = appAppleIDRefusal(notification.appAppleID, of: bundleID, what: "notification") {
            return refusal
        }
        if let refusal = environmentRefusal(notification.environment, what: "notification") { return refusal }
        for (field, payload) in nested {
            guard let payload else { continue }
            if let refusal = refusal(nested: payload, field: field, bundleID: bundleID) { return refusal }
        }
        return nil
    }

    private func refusal(nested payload: SignedPayload, field: String, bundleID: String) -> Refusal? {
        switch payload {
        case .renewalInfo(let info):
            return environmentRefusal(info.environment, what: field)
        case .transaction(let transaction):
            if transaction.bundleID != bundleID {
                return .invalidAppIdentifier(
                    "\(field) for bundle id \(Self.shown(transaction.bundleID)), not \(bundleID)")
            }
            return environmentRefusal(transaction.environment, what: field)
        case .appTransaction(let app):
            if app.bundleID != bundleID {
                return .invalidAppIdentifier("\(field) for bundle id \(Self.shown(app.bundleID)), not \(bundleID)")
            }
            if let refusal = appAppleIDRefusal(app.appAppleID, of: bundleID, what: field) { return refusal }
            return environmentRefusal(app.receiptType, what: field)
        case .notification:
            return .invalidAppIdentifier("\(field) holds a notification")
        }
    }

    private func appAppleIDRefusal(_ signed: Int64?, of bundleID: String, what: String) -> Refusal? {
        guard environment == .production else { return nil }
        guard let expected = appAppleIDs[bundleID] else {
            return .invalidAppIdentifier(
                "no Apple ID is configured for \(bundleID) (APPLE_APP_APPLE_IDS): a production notification cannot be checked"
            )
        }
        guard signed == expected else {
            return .invalidAppIdentifier(
                "\(what) for app Apple ID \(signed.map(String.init) ?? "(none)"), not \(bundleID)'s \(expected) (APPLE_APP_APPLE_IDS)"
            )
        }
        return nil
    }

    private func environmentRefusal(_ signed: SignedEnvironment?, what: String) -> Refusal? {
        guard let signed, signed.appStoreEnvironment == environment else {
            return .invalidEnvironment(
                "\(what) signed for \(signed.map { SignedDataFailure.shown($0.rawValue, limit: 20) } ?? "no environment"), asked in \(environment.appleValue)"
            )
        }
        return nil
    }

    /// A bundle id a trusted chain signed, as a detail may name it.
    private static func shown(_ bundleID: String?) -> String {
        bundleID.map { SignedDataFailure.shown($0, limit: 64) } ?? "(none)"
    }
}
