import AppStoreReceipts
import Foundation

/// The `AppleBackend` over the App Store Server API (CONTRACT §9): per user, not per row. One
/// customer's rows usually share one history, so the user's first row that names a transaction is
/// looked up (Get Transaction History v2, every page), every other row whose id that history holds is
/// answered by it, and only rows it does not hold are looked up in turn. Get All Subscription Statuses
/// is asked only when a subscription of the history may be in billing retry or its grace period.
///
/// The verified transactions and renewal info become purchases (`Purchase(SignedTransaction)`) and feed
/// the same rules as verifyReceipt's answers. What proves what (CONTRACT §9, "What proves a purchase
/// absent"): a transaction found only in the other environment is `misrouted`; unknown in both and in
/// every history fetched for the user, and never answered for before, `invalid`; an id Apple refuses the
/// format of, `invalid`; an account or app Apple no longer finds, an id it answered for before, a bundle
/// id the key is refused for, a permanent `unverified`; anything transient, a transient `unverified`.
///
public final class ServerAPIBackend: AppleBackend {
    let client: ServerAPIClient
    let context: ReceiptOutcomeContext
    let signedData: SignedDataVerifier
    /// App receipts' PKCS#7 signatures, checked before any request (Apple never sees the receipt here).
    let receiptSignatures: ReceiptSignatureVerifier
    /// `--as-of`; nil in a live night, where each user is judged when Apple answered about them.
    private let asOf: Date?
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

    /// A found history's outcome: `bundle_mismatch` for another app, `misrouted` when found only in the
    /// other environment, else `valid`.
    func classify(environment: AppStoreEnvironment, bundleID: String?, transactions: Int) -> ReceiptClassification {
        if let mismatch = ReceiptOutcomeRule.bundleIDRule(bundleID, accepted: context.acceptedBundleIDs) {
            return ReceiptClassification(
                outcome: .invalid, outcomeFlag: .bundleMismatch, environment: environment, detail: mismatch)
        }
        if environment == context.servedEnvironment.other {
            return ReceiptClassification(
                outcome: .misrouted, outcomeFlag: ReceiptOutcomeRule.misroutedFlag(served: context.servedEnvironment),
                environment: environment,
                detail:
                    "found by the App Store Server API in \(environment) only; this database serves \(context.servedEnvironment)"
            )
        }
        return ReceiptClassification(
            outcome: .valid, environment: environment,
            detail: "App Store Server API: \(transactions) transaction(s) in \(environment)")
    }

    /// Whether the subscription statuses are worth asking for: Apple's answer speaks for the user's instant
    /// of judgement (a status is Apple's state now, CONTRACT §9 "As of"; in a live night the instant is
    /// the answer's own, so it always does), and a subscription ended recently enough to be in billing
    /// retry or its grace period (then only the status tells access from a lapse).
    func needsStatuses(_ purchases: [Purchase]) -> Bool {
        let answered = purchases.lazy.compactMap(\.evidenceDate).max() ?? Date()
        let asOf = self.asOf ?? answered
        guard abs(answered.timeIntervalSince(asOf)) <= SubscriptionRenewal.currentStateWindow else { return false }
        var latest: [String: Date] = [:]
        for purchase in purchases where purchase.revocationHappened(by: asOf) == nil {
            guard let expires = purchase.expiresDate else { continue }
            let chain = purchase.originalTransactionID ?? purchase.transactionID ?? ""
            latest[chain] = max(latest[chain] ?? expires, expires)
        }
        return latest.values.contains { $0 <= asOf && asOf.timeIntervalSince($0) <= UserTruth.billingRetryWindow }
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
