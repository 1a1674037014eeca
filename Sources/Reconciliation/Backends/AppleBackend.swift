import AppStoreReceipts

/// The seam between the run and Apple: given one user's stored rows, the conversation with Apple that
/// answers for them.
///
/// A backend owns everything protocol-specific: routing between environments, retries, paging, local
/// decoding and signature checks, each expressed as an `AppleExchange`. The `ExchangeDriver` sends what
/// the exchange asks for (rate limits, the in-flight cap, waits, traffic figures), and the exchange's
/// result is one `AppleUserAnswer`: for each row an outcome (`ReceiptClassification`), and the
/// transactions and renewal facts the rules read. Nothing after this seam (decide, write, finish)
/// knows which backend answered. The transport (libcurl, URLSession) sits below the driver and knows
/// nothing of receipts.
///
/// Threading: `exchange(for:)` is called from any thread, beside any other call, and must not block.
public protocol AppleBackend: Sendable {
    /// The exchange that verifies every row of `user`. It may finish at once (every row judged
    /// locally or known already). A run that stops asking Apple leaves rows not yet asked about out of
    /// its answer.
    func exchange(for user: UserWork) -> any AppleExchange<AppleUserAnswer>

    /// Where a night reads Apple's notification history; nil for a service without one (verifyReceipt).
    var notificationHistory: NotificationHistorySource? { get }
}

extension AppleBackend {
    public var notificationHistory: NotificationHistorySource? { nil }
}

/// The App Store Server API's Get Notification History for the apps and the environment the database
/// serves.
public struct NotificationHistorySource: Sendable {
    let client: ServerAPIClient
    /// The default app first (a refusal of the key for it stops the run), then the others.
    let bundleIDs: [String]
    let environment: AppStoreEnvironment
    /// `APPLE_APP_APPLE_IDS`: what a production notification's `appAppleId` must be, per app.
    let appAppleIDs: [String: Int64]

    public init(
        client: ServerAPIClient, defaultBundleID: String, otherBundleIDs: [String], environment: AppStoreEnvironment,
        appAppleIDs: [String: Int64] = [:]
    ) {
        self.client = client
        bundleIDs = [defaultBundleID] + otherBundleIDs.filter { $0 != defaultBundleID }
        self.environment = environment
        self.appAppleIDs = appAppleIDs
    }

    var defaultBundleID: String { bundleIDs[0] }

    /// Whom a record must be for (`NotificationAudience`): one of these apps, in this environment.
    var audience: NotificationAudience {
        NotificationAudience(acceptedBundleIDs: Set(bundleIDs), appAppleIDs: appAppleIDs, environment: environment)
    }

    /// The apps whose production notifications cannot be checked, having no Apple ID configured.
    var appsWithoutAppleID: [String] {
        environment == .production ? bundleIDs.filter { appAppleIDs[$0] == nil } : []
    }
}
