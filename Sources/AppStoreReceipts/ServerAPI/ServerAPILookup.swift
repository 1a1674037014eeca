import Foundation

/// What the App Store Server API said about one id, after routing, retries and verification. The
/// cases keep apart what proves a purchase absent (CONTRACT §9) from what only says Apple no longer
/// finds it, and from what says nothing.
public enum ServerAPILookup<Value: Sendable>: Sendable {
    /// Found in `environment`; every signed item in `value` verified.
    case found(Value, environment: AppStoreEnvironment)
    /// 4040010 / 4040005, or a history that does not hold the id, in every environment asked;
    /// `errorCode` is the last one Apple sent (nil when every history Apple gave just lacked the id).
    case notFound(detail: String, errorCode: Int? = nil)
    /// 4040001 / 4040003 / 4040019 (account, app, app transaction not found) in an environment asked
    /// and nothing found in the other: Apple no longer finds it. Not proof the purchase never existed.
    case gone(code: Int, detail: String)
    /// 4000006 / 4000008 (`errorCode`), or an id that is not all ASCII decimal digits (checked BEFORE any
    /// request: no request is made, `errorCode` nil).
    case invalidID(detail: String, errorCode: Int? = nil)
    /// No verdict: transient failures outlasted the attempts, a refused request, an answer that does not decode or verify.
    case unverified(detail: String)
    /// 401 after a fresh token, or 4000002, for the bid asked with.
    case configuration(detail: String)
}

/// The transactions of a customer's history, each verified, the newest delivery of each id kept.
public struct ServerAPIHistory: Sendable {
    public var transactions: [SignedTransaction]
}

/// Get All Subscription Statuses, verified: per subscription, its status and renewal info.
public struct ServerAPIStatuses: Sendable {
    public struct Subscription: Sendable {
        /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
        public var status: Int?
        public var originalTransactionID: String?
        public var transaction: SignedTransaction?
        public var renewalInfo: SignedRenewalInfo?
    }

    public var subscriptions: [Subscription]
}
