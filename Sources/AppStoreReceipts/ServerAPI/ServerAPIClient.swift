import Foundation

/// A client of the App Store Server API for re-verification (CONTRACT §9, research/server-api.md):
/// Get Transaction History v2 walked page by page with `revision`, Get All Subscription Statuses, each
/// request through its endpoint's token bucket and the run's in-flight cap (`ServerAPIExchange`), every
/// signed item verified (`SignedDataVerifier`) before it is handed on.
///
/// Threading: every method may be called from any thread and returns at once; completions run on
/// `executor`.
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
    let tokens: ServerAPITokens
    let transport: any HTTPTransport
    let throttle: RequestThrottle
    let buckets: [ServerAPIEndpoint: TokenBucket]
    let clock: any ThrottleClock
    let waits = RetryWaits()
    private let verifier: SignedDataVerifier
    private let memo = VerifiedAnswerMemo()

    /// - Parameters:
    ///   - verifier: checks signatures and chains; the bundle id is the rules' to judge, and the
    ///     environment is checked here against the host that answered.
    ///   - rate: requests per second for each endpoint (`--rate`).
    public init(
        configuration: Configuration, tokens: ServerAPITokens, verifier: SignedDataVerifier,
        transport: any HTTPTransport, rate: Double, maxInFlight: Int, clock: any ThrottleClock = SystemThrottleClock()
    ) {
        self.configuration = configuration
        self.tokens = tokens
        self.verifier = verifier
        self.transport = transport
        self.clock = clock
        var buckets: [ServerAPIEndpoint: TokenBucket] = [:]
        for endpoint in ServerAPIEndpoint.allCases { buckets[endpoint] = TokenBucket(rate: rate, clock: clock) }
        self.buckets = buckets
        throttle = RequestThrottle(bucket: buckets[.transactionHistory]!, maxInFlight: maxInFlight)
    }

    func bucket(_ endpoint: ServerAPIEndpoint) -> TokenBucket { buckets[endpoint]! }

    func headers(token: String) -> [String: String] {
        ["Authorization": "Bearer " + token, "Accept": "application/json", "User-Agent": configuration.userAgent]
    }

    /// Whether `id` can be a transaction id at all: ASCII decimal digits, at least one. Any other id is
    /// `invalidID` without a request (Apple would answer 4000006; a crafted receipt's id is not sent).
    public static func isWellFormedID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The detail of an id refused before asking; the id itself is not repeated (it may be anything).
    static let malformedIDDetail = "the transaction id is not all decimal digits: not asked"

    /// Every transaction of the customer `id` belongs to, for the app `bundleID`: all pages, found only
    /// when they hold `id` (see `HistoryWalk` for what each answer means).
    /// - Parameters:
    ///   - environment: where to ask first; `mayHop`: ask the other environment once when the first
    ///     does not have the id (4040010 / 4040005 / 4040001 / 4040003 / 4040019, or a history without it).
    public func history(
        of id: String, bundleID: String, environment: AppStoreEnvironment, mayHop: Bool,
        shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (ServerAPILookup<ServerAPIHistory>, ServerAPITraffic) -> Void
    ) {
        HistoryWalk(
            client: self, id: id, bundleID: bundleID, environment: environment, mayHop: mayHop,
            shouldStop: shouldStop, executor: executor, completion: completion
        ).start()
    }

    /// The status and renewal info of each of the customer's subscriptions, asked where `environment`
    /// says (the history's, so no hop): not there is `notFound` or `gone`, as for a history.
    public func statuses(
        of id: String, bundleID: String, environment: AppStoreEnvironment,
        shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (ServerAPILookup<ServerAPIStatuses>, ServerAPITraffic) -> Void
    ) {
        guard Self.isWellFormedID(id) else {
            return executor { completion(.invalidID(detail: Self.malformedIDDetail), ServerAPITraffic()) }
        }
        ServerAPIExchange(
            client: self, endpoint: .subscriptionStatuses, id: id, query: "", bundleID: bundleID,
            environment: environment, shouldStop: shouldStop, executor: executor
        ) { outcome, traffic in
            let detail = { (code: Int) in "subscription statuses: errorCode \(code) in \(environment)" }
            switch outcome {
            case .finished(let end): completion(end.lookup(), traffic)
            case .answer(let body, let answered): completion(self.statuses(body, environment: answered), traffic)
            case .notHere(let code, gone: false): completion(.notFound(detail: detail(code)), traffic)
            case .notHere(let code, gone: true): completion(.gone(code: code, detail: detail(code)), traffic)
            case .restartWalk(let code):
                completion(
                    .unverified(detail: detail(code) + " (a pagination error for a request without pages)"), traffic)
            }
        }.send()
    }

    /// Stops retries and throttle waits at once (a signal).
    public func stop() {
        waits.stop()
        transport.abandonWaitingRequests()
    }

    func after(_ delay: Duration, _ work: @escaping @Sendable (_ stopped: Bool) -> Void) {
        waits.after(delay, on: clock, work)
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

    private func statuses(_ body: Data, environment: AppStoreEnvironment) -> ServerAPILookup<ServerAPIStatuses> {
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
