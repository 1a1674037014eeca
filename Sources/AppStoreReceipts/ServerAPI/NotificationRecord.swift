import Foundation

/// What a night keeps of a believed notification until it is stored: the fields
/// `recon_notifications` holds and the read's figures count. A span's records wait for their turn
/// to be stored beside several other spans, and a large app's span holds hundreds: the decoded
/// notification, transaction and renewal info they are taken from are several times their size and
/// are needed no more once the record was believed.
public struct NotificationRecord: Sendable, Equatable {
    public var uuid: String?
    public var type: SignedNotification.NotificationType?
    public var subtype: SignedNotification.Subtype?
    public var signedDate: Date?
    /// The environment of its first part present (`SignedNotification.environment`).
    public var environment: AppStoreEnvironment?
    public var bundleID: String?
    /// Apple tried to deliver it and never succeeded: the change the app's webhook missed.
    public var deliveryFailed: Bool
    /// Its transaction's, when it carries one.
    public var transactionID: String?
    /// The purchase it speaks of (its transaction's, else its renewal info's), for finding the user.
    public var originalTransactionID: String?
    public var productID: String?

    public init(_ verified: VerifiedNotification) {
        let notification = verified.notification
        uuid = notification.notificationUUID
        type = notification.notificationType
        subtype = notification.subtype
        signedDate = notification.signedDate
        environment = notification.environment?.appStoreEnvironment
        bundleID = notification.bundleID
        deliveryFailed = verified.deliveryFailed
        transactionID = verified.transaction?.transactionID
        originalTransactionID = verified.originalTransactionID
        productID = verified.transaction?.productID ?? verified.renewalInfo?.productID
    }
}
