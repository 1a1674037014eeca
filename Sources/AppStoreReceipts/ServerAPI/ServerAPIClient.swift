import Foundation

/// The App Store Server API as the job asks it (CONTRACT §9, research/server-api.md): where to send,
/// with which limits, and how to read what comes back. It makes the exchanges (Get Transaction History
/// v2 walked page by page with `revision`, Get All Subscription Statuses) that `ExchangeDriver` sends,
/// and verifies every signed item of an answer (`SignedDataVerifier`) before it is handed on.
///
/// Threading: immutable but for the memo of verified answers, which is thread-safe; shared by every
/// exchange of the run.
public final class ServerAPIClient: Sendable {
    public struct Configuration: Sendable {
        public var productionURL: URL
        public var sandboxURL: URL
        public var timeout: Duration
        public var budget: VerifyReceiptRetryBudget
        public var backoff: BackoffPolicy
        public var userAgent: String

        public init(
            productionURL: URL = URL(string: "https://api.storekit.apple.com")!,
            sandboxURL: URL = URL(string: "https://api.storekit-sandbox.apple.com")!,
            timeout: Duration = .seconds(30), budget: VerifyReceiptRetryBudget = VerifyReceiptRetryBudget(),
            backoff: BackoffPolicy = BackoffPolicy(), userAgent: String = "receipt-recon"
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.timeout = timeout
            self.budget = budget
            self.backoff = backoff
            self.userAgent = userAgent
        }

        func url(_ endpoint: ServerAPIEndpoint, id: String, query: String, environment: AppStoreEnvironment) -> URL {
            let base = (environment == .production ? productionURL : sandboxURL).absoluteString
            let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
            return URL(string: trimmed + endpoint.path(id) + (query.isEmpty ? "" : "?" + query))!
        }
    }

    public let configuration: Configuration
    let retry: RetryRule
    /// Every request's headers but the token, which the driver signs in.
    let headers: [String: String]
    private let verifier: SignedDataVerifier
    private let memo = VerifiedAnswerMemo()

    /// - Parameter verifier: checks signatures and chains; the bundle id is the rules' to judge, and the
    ///   environment is checked here against the host that answered.
    public init(configuration: Configuration, verifier: SignedDataVerifier) {
        self.configuration = configuration
        self.verifier = verifier
        retry = RetryRule(budget: configuration.budget, backoff: configuration.backoff)
        headers = ["Accept": "application/json", "User-Agent": configuration.userAgent]
    }

    /// Whether `id` can be a transaction id at all: ASCII decimal digits, at least one. Any other id is
    /// `invalidID` without a request (Apple would answer 4000006; a crafted receipt's id is not sent).
    public static func isWellFormedID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Whether `id` has the shape of an App Store order id (`MK5TTTVWJH` on the customer's receipt email):
    /// 1 to 32 ASCII letters and digits. Anything else is never sent.
    public static func isWellFormedOrderID(_ id: String) -> Bool {
        (1...32).contains(id.utf8.count)
            && id.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
    }

    /// The detail of an id refused before asking; the id itself is not repeated (it may be anything).
    static let malformedIDDetail = "the transaction id is not all decimal digits: not asked"

    /// Every transaction of the customer `id` belongs to, for the app `bundleID`: all pages, found only
    /// when they hold `id` (see `TransactionHistoryWalk` for what each answer means).
    /// - Parameters:
    ///   - environment: where to ask first; `mayHop`: ask the other environment once when the first
    ///     does not have the id (4040010 / 4040005 / 4040001 / 4040003 / 4040019, or a history without it).
    ///   - purpose: why its first request is sent (`.ask`: a draining run does not start it).
    public func history(
        of id: String, bundleID: String, environment: AppStoreEnvironment, mayHop: Bool,
        purpose: RequestPurpose = .ask
    ) -> TransactionHistoryWalk {
        TransactionHistoryWalk(
            client: self, id: id, bundleID: bundleID, environment: environment, mayHop: mayHop, purpose: purpose)
    }

    /// The status and renewal info of each of the customer's subscriptions, asked where `environment`
    /// says (the history's, so no hop).
    /// - Parameter purpose: `.continuation` by default: the statuses finish a question the history began.
    public func statuses(
        of id: String, bundleID: String, environment: AppStoreEnvironment, purpose: RequestPurpose = .continuation
    ) -> SubscriptionStatusesLookup {
        SubscriptionStatusesLookup(
            client: self, id: id, bundleID: bundleID, environment: environment, purpose: purpose)
    }

    /// Look Up Order ID for `orderID` (see `OrderIDLookup`): `environment` first, the other once.
    /// - Parameters:
    ///   - bundleID: the app the token names; `acceptedBundleIDs`: the apps whose transactions are believed.
    public func orderLookup(
        _ orderID: String, bundleID: String, acceptedBundleIDs: Set<String>, environment: AppStoreEnvironment,
        purpose: RequestPurpose = .ask
    ) -> OrderIDLookup {
        OrderIDLookup(
            client: self, orderID: orderID, bundleID: bundleID, acceptedBundleIDs: acceptedBundleIDs,
            environment: environment, purpose: purpose)
    }

    /// Get Notification History over [`start`, `end`) in `audience.environment`, every page (see
    /// `NotificationHistoryWalk`); `bundleID` is the app the JWT names, `audience` whom a record must be
    /// for to be believed; `firstPageRead` is told when Apple's first page was read.
    public func notificationHistory(
        bundleID: String, audience: NotificationAudience, from start: Date, to end: Date,
        purpose: RequestPurpose = .ask, firstPageRead: (@Sendable () -> Void)? = nil
    ) -> NotificationHistoryWalk {
        NotificationHistoryWalk(
            client: self, bundleID: bundleID, audience: audience, from: start, to: end, purpose: purpose,
            firstPageRead: firstPageRead)
    }

    /// A notification with its nested signed data, believed as Apple's `verify_and_decode_notification`
    /// and the verifiers of its nested data would believe it (`NotificationAudience`), or why not.
    public func notification(_ jws: String, for audience: NotificationAudience) -> Result<
        VerifiedNotification, RejectedNotification
    > {
        let verification = verifier.verify(Array(jws.utf8))
        if let failure = verification.failure {
            return .failure(RejectedNotification(detail: "signed notification rejected: \(failure)"))
        }
        guard case .notification(let notification)? = verification.payload else {
            return .failure(
                RejectedNotification(detail: "signed data in the notification history is not a notification"))
        }
        let nested = verification.nested.map { (field: $0.field, payload: $0.verification.payload) }
        if let refusal = audience.refusal(of: notification, nested: nested) {
            return .failure(RejectedNotification(detail: "signed notification refused: \(refusal)"))
        }
        var verified = VerifiedNotification(notification: notification, deliveryFailed: false)
        for nested in verification.nested {
            switch nested.verification.payload {
            case .transaction(let transaction)?: verified.transaction = transaction
            case .renewalInfo(let info)?: verified.renewalInfo = info
            default: break
            }
        }
        return .success(verified)
    }

    /// A signed transaction of an answer, verified, and signed for the environment that answered.
    func transaction(_ jws: String, environment: AppStoreEnvironment) -> Result<SignedTransaction, SignedAnswerError> {
        switch verified(jws, environment: environment) {
        case .failure(let error): return .failure(error)
        case .success(.transaction(let transaction)): return .success(transaction)
        case .success: return .failure(SignedAnswerError(detail: "signed data in the answer is not a transaction"))
        }
    }

    func verified(_ jws: String, environment: AppStoreEnvironment) -> Result<SignedPayload, SignedAnswerError> {
        let payload: SignedPayload
        if let known = memo.payload(of: jws) {
            payload = known
        } else {
            let verification = verifier.verify(Array(jws.utf8))
            if let failure = verification.failure {
                return .failure(SignedAnswerError(detail: "signed data in Apple's answer rejected: \(failure)"))
            }
            guard let verified = verification.payload else {
                return .failure(SignedAnswerError(detail: "signed data in Apple's answer has no payload"))
            }
            memo.remember(verified, of: jws)
            payload = verified
        }
        // Apple signs the environment into every transaction and renewal info it answers with; data
        // that names none cannot be told from the other environment's, and is not believed.
        guard let signed = payload.environment else {
            return .failure(
                SignedAnswerError(
                    detail: "signed data in Apple's answer rejected: \(SignedDataFailure.missingEnvironment)"))
        }
        if signed.appStoreEnvironment != environment {
            return .failure(
                SignedAnswerError(detail: "the \(environment) host answered with data signed for \(signed.rawValue)"))
        }
        return .success(payload)
    }

    func statuses(_ body: Data, environment: AppStoreEnvironment) -> ServerAPILookup<ServerAPIStatuses> {
        let decoded: ServerAPIStatusesBody
        do {
            decoded = try ServerAPIStatusesBody(body)
        } catch {
            return .unverified(detail: "subscription statuses: \(error)")
        }
        var subscriptions: [ServerAPIStatuses.Subscription] = []
        for last in decoded.lastTransactions {
            var subscription = ServerAPIStatuses.Subscription(
                status: last.status, originalTransactionID: last.originalTransactionID)
            if let jws = last.signedTransactionInfo {
                switch transaction(jws, environment: environment) {
                case .success(let transaction): subscription.transaction = transaction
                case .failure(let error): return .unverified(detail: error.detail)
                }
            }
            if let jws = last.signedRenewalInfo {
                switch verified(jws, environment: environment) {
                case .success(.renewalInfo(let info)): subscription.renewalInfo = info
                case .success: return .unverified(detail: "signedRenewalInfo in the answer is not renewal info")
                case .failure(let error): return .unverified(detail: error.detail)
                }
            }
            subscriptions.append(subscription)
        }
        return .found(ServerAPIStatuses(subscriptions: subscriptions), environment: environment)
    }
}

/// Signed data in one of Apple's answers that cannot be believed: the lookup is `unverified`.
struct SignedAnswerError: Error {
    let detail: String
}
