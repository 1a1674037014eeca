import Foundation

/// One request to the App Store Server API until it has an answer, as an exchange: retries with
/// backoff and jitter (429's `Retry-After` honoured) within the budget, one fresh token after a 401.
/// Where to ask next (the other environment, the first page again) is the caller's to decide: a
/// history is "not here" only once all of its pages have been read.
struct ServerAPICall: AppleExchange {
    enum Outcome: Sendable {
        case answer(Data)
        /// Apple does not find the id in the environment asked: 4040010 / 4040005 (`gone` false), or
        /// 4040001 / 4040003 / 4040019 (`gone` true: what the id belonged to is no longer found).
        case notHere(code: Int, gone: Bool)
        /// 4000005 / 4000014 / 4000017: the `revision` asked with is no longer good.
        case restartWalk(code: Int)
        case finished(ServerAPILookupEnd)
    }

    private let client: ServerAPIClient
    private let endpoint: ServerAPIEndpoint
    private let method: HTTPMethod
    private let url: URL
    private let body: Data
    private let bundleID: String
    /// Where the request goes: the sandbox's limits are apart from production's.
    private let environment: AppStoreEnvironment
    /// Why the first request is sent (a new question, a hop, the next page).
    private let purpose: RequestPurpose
    private var attempt = 0
    private var refreshedToken = false
    /// The failure the pending retry is for: what a stop reports.
    private var retrying: ServerAPIAnswer.RetryCause?

    init(
        client: ServerAPIClient, endpoint: ServerAPIEndpoint, id: String, query: String, bundleID: String,
        environment: AppStoreEnvironment, purpose: RequestPurpose
    ) {
        self.init(
            client: client, endpoint: endpoint, method: .get,
            url: client.configuration.url(endpoint, id: id, query: query, environment: environment), body: Data(),
            bundleID: bundleID, environment: environment, purpose: purpose)
    }

    /// A request whose URL and body the caller built (the notification history's POST).
    init(
        client: ServerAPIClient, endpoint: ServerAPIEndpoint, method: HTTPMethod, url: URL, body: Data,
        bundleID: String, environment: AppStoreEnvironment, purpose: RequestPurpose
    ) {
        self.client = client
        self.endpoint = endpoint
        self.method = method
        self.url = url
        self.body = body
        self.bundleID = bundleID
        self.environment = environment
        self.purpose = purpose
    }

    mutating func start() -> ExchangeStep<Outcome> {
        send(purpose)
    }

    mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<Outcome> {
        switch event {
        case .stop(let point): .finish(.finished(.unverified(detail: stopped(point))))
        case .answer(let answer): received(answer)
        }
    }

    private mutating func send(_ purpose: RequestPurpose, after delay: Duration = .zero) -> ExchangeStep<Outcome> {
        attempt += 1
        var headers = client.headers
        if method == .post { headers["Content-Type"] = "application/json" }
        let http = HTTPClientRequest(
            method: method, url: url, body: body, headers: headers, timeout: client.configuration.timeout)
        return .send(
            AppleRequest(
                http, endpoint: .serverAPI(endpoint), environment: environment, purpose: purpose,
                bearer: BearerToken(bundleID: bundleID, fresh: refreshedToken && attempt == 1)),
            after: delay)
    }

    private func stopped(_ point: StopPoint) -> String {
        guard let retrying else { return "not asked: the run is stopping" }
        switch point {
        case .beforeAsking, .beforeRetrying: return "\(endpoint): \(retrying) after \(attempt - 1) attempt(s)"
        case .duringBackoff: return "\(endpoint): \(retrying); the run is stopping"
        case .beforeSending: return "not asked: the run is stopping"
        }
    }

    private mutating func received(_ answer: ExchangeAnswer) -> ExchangeStep<Outcome> {
        retrying = nil
        switch ServerAPIAnswer.classify(answer.result, now: answer.now) {
        case .success(let body):
            return .finish(.answer(body))
        case .notInThisEnvironment(let code):
            return .finish(.notHere(code: code, gone: false))
        case .gone(let code):
            return .finish(.notHere(code: code, gone: true))
        case .restartWalk(let code):
            return .finish(.restartWalk(code: code))
        case .invalidID(let code):
            return .finish(
                .finished(.invalidID(detail: "Apple refuses the id's format (errorCode \(code))", errorCode: code)))
        case .unauthorized:
            guard !refreshedToken else {
                return .finish(.finished(.configuration(detail: Self.unauthorized(bundleID: bundleID))))
            }
            refreshedToken = true
            attempt = 0
            return send(.continuation)
        case .configuration(let problem):
            return .finish(.finished(.configuration(detail: problem)))
        case .refused(let reason):
            return .finish(.finished(.unverified(detail: "\(endpoint) \(reason)")))
        case .retry(let cause, let after):
            return retry(cause, after: after)
        case .retryOnce(let cause):
            return retry(cause, after: nil, limit: ServerAPIAnswer.boundedAttempts)
        }
    }

    /// A 401 with a fresh token: Apple refuses the token, and any of its four parts may be why. The bundle
    /// id (the token's `bid`, not a secret) is named with its value: a typo in it reads like a bad key.
    static func unauthorized(bundleID: String) -> String {
        "HTTP 401 from the App Store Server API with a fresh token for bundle id \(bundleID) (the JWT's bid, "
            + "from APPLE_BUNDLE_IDS or --bundle-id): check that bundle id (the app's, exactly as App Store Connect "
            + "shows it), the API key file, APPLE_API_KEY_ID and APPLE_API_ISSUER_ID (an In-App Purchase key of "
            + "that app's team)"
    }

    private mutating func retry(_ cause: ServerAPIAnswer.RetryCause, after: Duration?, limit: Int = .max)
        -> ExchangeStep<Outcome>
    {
        switch client.retry.plan(afterAttempt: attempt, limit: limit, retryAfter: after) {
        case .attemptsSpent:
            return .finish(.finished(.unverified(detail: "\(endpoint): \(cause) after \(attempt) attempt(s)")))
        case .waitTooLong:
            return .finish(
                .finished(.unverified(detail: "\(endpoint): \(cause) asks to wait longer than --max-retry-wait")))
        case .retry(let delay):
            retrying = cause
            return send(.retry, after: delay)
        }
    }
}

/// How a request ended without a body to read, whatever else is asked.
enum ServerAPILookupEnd: Sendable {
    case invalidID(detail: String, errorCode: Int?)
    case unverified(detail: String)
    case configuration(detail: String)

    func lookup<Value>() -> ServerAPILookup<Value> {
        switch self {
        case .invalidID(let detail, let code): .invalidID(detail: detail, errorCode: code)
        case .unverified(let detail): .unverified(detail: detail)
        case .configuration(let detail): .configuration(detail: detail)
        }
    }
}
