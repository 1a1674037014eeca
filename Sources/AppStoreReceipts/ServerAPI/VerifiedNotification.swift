import Foundation

/// One App Store Server Notification from Get Notification History, believed: its signature, chain
/// and nested signed data verified, and for an app and the environment it was asked for
/// (`NotificationAudience`).
public struct VerifiedNotification: Sendable {
    public var notification: SignedNotification
    /// `data.signedTransactionInfo`, verified in turn, when the notification carries one.
    public var transaction: SignedTransaction?
    /// `data.signedRenewalInfo`, verified in turn, when the notification carries one.
    public var renewalInfo: SignedRenewalInfo?
    /// Apple tried to deliver it and never succeeded: the change the app's webhook missed.
    public var deliveryFailed: Bool

    /// The purchase it speaks of (its transaction's, else its renewal info's), for finding the user.
    public var originalTransactionID: String? {
        transaction?.originalTransactionID ?? renewalInfo?.originalTransactionID
    }
}

/// A notification that cannot be believed (its signature, chain or nested data fails, or it is for
/// another app or environment): counted and logged, never acted on.
public struct RejectedNotification: Error, Sendable {
    public var detail: String

    public init(detail: String) { self.detail = detail }
}

/// The notifications of one time span as far as they could be read.
public struct NotificationBatch: Sendable {
    /// Each believed, and kept as the few fields a night stores.
    public var notifications: [NotificationRecord] = []
    public var rejected: [RejectedNotification] = []
    public var pages = 0
}

/// How a read of Get Notification History over one time span ended.
public enum NotificationHistoryRead: Sendable {
    /// Every page of the span was read: a cursor may move past it.
    case complete(NotificationBatch)
    /// A page failed after its retries, or the run stopped: what was read may be acted on, but the
    /// span must be read again.
    case incomplete(NotificationBatch, detail: String)
    /// 401 after a fresh token, 4000002: the job's configuration is wrong.
    case configuration(detail: String)
}
