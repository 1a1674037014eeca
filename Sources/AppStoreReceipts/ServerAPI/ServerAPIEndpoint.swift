import Foundation

/// The App Store Server API endpoints a re-verification uses (research/server-api.md §2). Apple limits
/// each one separately, so each has its own token bucket (`--rate` applies to each).
public enum ServerAPIEndpoint: String, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// Get Transaction History v2: every transaction of the customer for the app, 20 a page.
    case transactionHistory = "transaction_history"
    /// Get All Subscription Statuses: per subscription group, status 1-5 and the renewal info.
    case subscriptionStatuses = "subscription_statuses"
    /// Get Notification History: the App Store Server Notifications V2 Apple sent (or tried to send)
    /// to the app in a time span, 20 a page (research/server-api.md §9).
    case notificationHistory = "notification_history"
    /// Look Up Order ID: the transactions of the order id on a customer's App Store receipt email
    /// (Apple's limit for it is 10 requests a second, a fifth of the others').
    case orderLookup = "order_lookup"

    /// The path below the base URL for `id` (any transaction id of the customer; an order id for
    /// Look Up Order ID; the notification history names none).
    func path(_ id: String) -> String {
        let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
        switch self {
        case .transactionHistory: return "/inApps/v2/history/" + escaped
        case .subscriptionStatuses: return "/inApps/v1/subscriptions/" + escaped
        case .notificationHistory: return "/inApps/v1/notifications/history"
        case .orderLookup: return "/inApps/v1/lookup/" + escaped
        }
    }

    public var description: String { rawValue }
}
