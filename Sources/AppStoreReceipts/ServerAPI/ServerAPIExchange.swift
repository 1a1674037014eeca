import Foundation

/// One request to the App Store Server API until it has an answer: the endpoint's token bucket and the
/// run's in-flight cap, the JWT, retries with backoff and jitter (429's `Retry-After` honoured), one
/// fresh token after a 401. Where to ask next (the other environment, the first page again) is the
/// caller's to decide: a history is "not here" only once all of its pages have been read.
///
/// Threading: like the verifyReceipt client's pending verifications, an exchange is handed from the
/// transport's thread to the executor with each answer and is touched by one thread at a time.
final class ServerAPIExchange: @unchecked Sendable {
    enum Outcome {
        case answer(Data, environment: AppStoreEnvironment)
        /// Apple does not find the id in the environment asked: 4040010 / 4040005 (`gone` false), or
        /// 4040001 / 4040003 / 4040019 (`gone` true: what the id belonged to is no longer found).
        case notHere(code: Int, gone: Bool)
        /// 4000005 / 4000014 / 4000017: the `revision` asked with is no longer good.
        case restartWalk(code: Int)
        case finished(ServerAPILookupEnd)
    }

    private let client: ServerAPIClient
    private let endpoint: ServerAPIEndpoint
    private let id: String
    private let query: String
    private let bundleID: String
    private let environment: AppStoreEnvironment
    private let shouldStop: @Sendable () -> Bool
    private let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
    private let completion: @Sendable (Outcome, ServerAPITraffic) -> Void
    private var attempt = 0
    private var refreshedToken = false
    private var traffic = ServerAPITraffic()

    init(
        client: ServerAPIClient, endpoint: ServerAPIEndpoint, id: String, query: String, bundleID: String,
        environment: AppStoreEnvironment, shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (Outcome, ServerAPITraffic) -> Void
    ) {
        self.client = client
        self.endpoint = endpoint
        self.id = id
        self.query = query
        self.bundleID = bundleID
        self.environment = environment
        self.shouldStop = shouldStop
        self.executor = executor
        self.completion = completion
    }

    func send() {
        attempt += 1
        let token = client.tokens.token(bundleID: bundleID, fresh: refreshedToken && attempt == 1)
        let url = client.configuration.url(endpoint, id: id, query: query, environment: environment)
        client.throttle.begin(tokenFrom: client.bucket(endpoint)) { wait in
            guard !self.client.waits.isStopped else {
                self.client.throttle.end()
                return self.executor { self.finish(.unverified(detail: "not asked: the run is stopping")) }
            }
            let clock = self.client.clock
            let started = clock.now()
            self.client.transport.send(
                .get, url, body: Data(), headers: self.client.headers(token: token),
                timeout: self.client.configuration.timeout, startingIn: wait, clock: clock
            ) { result in
                let latency = clock.now() - started - wait
                self.client.throttle.end()
                self.executor { self.received(result, latency: latency) }
            }
        }
    }

    private func received(_ result: HTTPExchangeResult, latency: Duration) {
        traffic.requests += 1
        traffic.requestsByEndpoint[endpoint, default: 0] += 1
        traffic.latencies.append(latency)
        traffic.answers[ServerAPIAnswer.tallyKey(result), default: 0] += 1
        switch ServerAPIAnswer.classify(result, now: client.clock.wallClock()) {
        case .success(let body):
            completion(.answer(body, environment: environment), traffic)
        case .notInThisEnvironment(let code):
            completion(.notHere(code: code, gone: false), traffic)
        case .gone(let code):
            completion(.notHere(code: code, gone: true), traffic)
        case .restartWalk(let code):
            completion(.restartWalk(code: code), traffic)
        case .invalidID(let code):
            finish(.invalidID(detail: "Apple refuses the id's format (errorCode \(code))"))
        case .unauthorized:
            guard !refreshedToken else {
                return finish(
                    .configuration(
                        detail: "HTTP 401 from the App Store Server API with a fresh token: check the API key file, "
                            + "APPLE_API_KEY_ID and APPLE_API_ISSUER_ID"))
            }
            refreshedToken = true
            attempt = 0
            send()
        case .configuration(let problem):
            finish(.configuration(detail: problem))
        case .refused(let reason):
            finish(.unverified(detail: "\(endpoint) \(reason)"))
        case .retry(let reason, let after):
            if reason.hasPrefix("HTTP 429") { traffic.throttled += 1 }
            retry(reason, after: after)
        case .retryOnce(let reason):
            retry(reason, after: nil, attempts: ServerAPIAnswer.boundedAttempts)
        }
    }

    private func retry(_ reason: String, after: Duration?, attempts limit: Int = .max) {
        let budget = client.configuration.budget
        guard attempt < min(budget.maxAttempts, limit), !shouldStop(), !client.waits.isStopped else {
            return finish(.unverified(detail: "\(endpoint): \(reason) after \(attempt) attempt(s)"))
        }
        if let after, after > budget.maxWait {
            return finish(.unverified(detail: "\(endpoint): \(reason) asks to wait longer than --max-retry-wait"))
        }
        traffic.retries += 1
        let delay = client.configuration.backoff.delay(afterAttempt: attempt, retryAfter: after, limit: budget.maxWait)
        client.after(delay) { stopped in
            guard stopped else { return self.send() }
            self.executor { self.finish(.unverified(detail: "\(self.endpoint): \(reason); the run is stopping")) }
        }
    }

    private func finish(_ end: ServerAPILookupEnd) {
        completion(.finished(end), traffic)
    }
}

/// How a request ended without a body to read, whatever else is asked.
enum ServerAPILookupEnd {
    case invalidID(detail: String)
    case unverified(detail: String)
    case configuration(detail: String)

    func lookup<Value>() -> ServerAPILookup<Value> {
        switch self {
        case .invalidID(let detail): .invalidID(detail: detail)
        case .unverified(let detail): .unverified(detail: detail)
        case .configuration(let detail): .configuration(detail: detail)
        }
    }
}
