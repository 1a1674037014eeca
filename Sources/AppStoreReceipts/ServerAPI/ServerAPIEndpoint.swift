import Foundation

/// The App Store Server API endpoints (research/server-api.md §2): the one vocabulary of the client,
/// the simulator and the scripted test server, with each endpoint's method and path, and the parser
/// that reads a request path back. Apple limits each endpoint separately, so each the job calls has its
/// own token bucket (`--rate` applies to each).
public enum ServerAPIEndpoint: String, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// Get Transaction History v2: every transaction of the customer for the app, 20 a page.
    case transactionHistory = "transaction_history"
    /// Get All Subscription Statuses: per subscription group, status 1-5 and the renewal info.
    case subscriptionStatuses = "subscription_statuses"
    /// Get Transaction Info: one signed transaction. The job does not call it (the history carries every
    /// transaction); the simulator and the scripted test server answer it as Apple does.
    case transactionInfo = "transaction_info"
    /// Get Notification History: the App Store Server Notifications V2 Apple sent (or tried to send)
    /// to the app in a time span, 20 a page (research/server-api.md §9).
    case notificationHistory = "notification_history"
    /// Look Up Order ID: the transactions of the order id on a customer's App Store receipt email
    /// (Apple's limit for it is 10 requests a second, a fifth of the others').
    case orderLookup = "order_lookup"

    /// The endpoints the job calls, each with its own limits in each environment (`AppleLimitKey`).
    public static let calledByTheJob: [ServerAPIEndpoint] = [
        .transactionHistory, .subscriptionStatuses, .notificationHistory, .orderLookup,
    ]

    /// `POST` for Get Notification History (its span is the body), `GET` for the others.
    public var method: String { self == .notificationHistory ? "POST" : "GET" }

    /// The path below the base URL for `id` (any transaction id of the customer; an order id for
    /// Look Up Order ID; the notification history names none).
    public func path(_ id: String) -> String {
        let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
        switch self {
        case .notificationHistory: return "/inApps/v1/notifications/history"
        default: return "/inApps/" + segments.version + "/" + segments.name + "/" + escaped
        }
    }

    /// The two path segments after `/inApps/` that name the endpoint.
    private var segments: (version: Substring, name: Substring) {
        switch self {
        case .transactionHistory: ("v2", "history")
        case .subscriptionStatuses: ("v1", "subscriptions")
        case .transactionInfo: ("v1", "transactions")
        case .notificationHistory: ("v1", "notifications")
        case .orderLookup: ("v1", "lookup")
        }
    }

    /// The endpoint, environment and id of a request path on a loopback server that serves each
    /// environment below its own prefix, as the simulator and the scripted test server do:
    /// `/{production|sandbox}` + `path(id)`, the id percent-decoded (as sent when it does not decode);
    /// the notification history's id is empty. Nil for any other path.
    public static func route(_ path: String) -> (
        endpoint: ServerAPIEndpoint, environment: AppStoreEnvironment, id: String
    )? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[2] == "inApps",
            let environment = AppStoreEnvironment(rawValue: String(parts[1])),
            let endpoint = allCases.first(where: { $0.segments == (parts[3], parts[4]) })
        else { return nil }
        if endpoint == .notificationHistory {
            return parts[5] == "history" ? (endpoint, environment, "") : nil
        }
        return (endpoint, environment, String(parts[5]).removingPercentEncoding ?? String(parts[5]))
    }

    public var description: String { rawValue }
}
