import AppStoreReceipts
import Foundation

/// The `AppleBackend` over the App Store Server API (CONTRACT §9): per user, not per row. One
/// customer's rows usually share one history, so the user's first row that names a transaction is
/// looked up (Get Transaction History v2, every page), every other row whose id that history holds is
/// answered by it, and only rows it does not hold are looked up in turn. Get All Subscription Statuses
/// is asked only when a subscription of the history may be in billing retry or its grace period.
///
/// The verified transactions and renewal info become purchases (`Purchase(SignedTransaction)`) and feed
/// the same rules as verifyReceipt's answers. What each answer proves is `ServerAPIAnswerRule`'s to say
/// (CONTRACT §9, "What proves a purchase absent"), a found history's outcome `classifyHistory`'s, and
/// whether the statuses are worth asking for `RenewalStateRule`'s: this backend only asks and translates.
public final class ServerAPIBackend: AppleBackend {
    let client: ServerAPIClient
    let context: ReceiptOutcomeContext
    let signedData: SignedDataVerifier
    /// App receipts' PKCS#7 signatures, checked before any request (Apple never sees the receipt here).
    let receiptSignatures: ReceiptSignatureVerifier
    /// `--as-of`; nil in a live night, where each user is judged when Apple answered about them.
    let asOf: Date?
    /// The bundle id asked about when a row names none (`bid` is required).
    let defaultBundleID: String
    /// `APPLE_APP_APPLE_IDS`, for the notification history.
    let appAppleIDs: [String: Int64]

    public init(
        client: ServerAPIClient, context: ReceiptOutcomeContext, signedData: SignedDataVerifier,
        receiptSignatures: ReceiptSignatureVerifier, asOf: Date?, defaultBundleID: String,
        appAppleIDs: [String: Int64] = [:]
    ) {
        self.appAppleIDs = appAppleIDs
        self.client = client
        self.context = context
        self.signedData = signedData
        self.receiptSignatures = receiptSignatures
        self.asOf = asOf
        self.defaultBundleID = defaultBundleID
    }

    public func exchange(for user: UserWork) -> any AppleExchange<AppleUserAnswer> {
        let keys = user.receipts.map {
            StoredRowKey.read($0, verifier: signedData, receiptSignatures: receiptSignatures, context: context)
        }
        return ServerAPIUserWalk(backend: self, user: user, keys: keys)
    }

    /// The apps the key may speak for, each read in the environment this database serves.
    public var notificationHistory: NotificationHistorySource? {
        NotificationHistorySource(
            client: client, defaultBundleID: defaultBundleID, otherBundleIDs: context.acceptedBundleIDs.sorted(),
            environment: context.servedEnvironment, appAppleIDs: appAppleIDs)
    }

    /// The renewal state the rules read: a grace period only for a subscription Apple says is in it
    /// (status 4); billing retry without grace (status 3) keeps no access.
    static func renewals(_ statuses: ServerAPIStatuses) -> [SubscriptionRenewal] {
        statuses.subscriptions.compactMap { subscription in
            guard let signed = subscription.renewalInfo else { return nil }
            return SubscriptionRenewal(
                signed, inGracePeriod: subscription.status == 4,
                originalTransactionID: subscription.originalTransactionID)
        }
    }
}
