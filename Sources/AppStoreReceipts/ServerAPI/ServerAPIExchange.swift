import Foundation

/// One request to the App Store Server API until it has an answer: the endpoint's token bucket and the
/// run's in-flight cap, the JWT, retries with backoff and jitter (429's `Retry-After` honoured), one
/// hop to the other environment on 4040010 / 4040005, one fresh token after a 401.
///
/// Threading: like the verifyReceipt client's pending verifications, an exchange is handed from the
/// transport's thread to the executor with each answer and is touched by one thread at a time.
final class ServerAPIExchange: @unchecked Sendable {
    enum Outcome {
        case answer(Data, environment: AppStoreEnvironment)
        case finished(ServerAPILookupEnd)
    }

    private let client: ServerAPIClient
    private let endpoint: ServerAPIEndpoint
    private let id: String
    private let query: String
    private let bundleID: String
    private var environment: AppStoreEnvironment
    private var mayHop: Bool
    private let shouldStop: @Sendable () -> Bool
    private let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
    private let completion: @Sendable (Outcome, ServerAPITraffic) -> Void
    private var attempt = 0
    private var refreshedToken = false
    private var traffic = ServerAPITraffic()

    init(
        client: ServerAPIClient, endpoint: ServerAPIEndpoint, id: String, query: String, bundleID: String,
        environment: AppStoreEnvironment, mayHop: Bool, shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (Outcome, ServerAPITraffic) -> Void
    ) {
        self.client = client
        self.endpoint = endpoint
        self.id = id
        self.query = query
        self.bundleID = bundleID
        self.environment = environment
        self.mayHop = mayHop
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
        switch ServerAPIAnswer.classify(result, now: client.clock.wallClock()) {
        case .success(let body):
            completion(.answer(body, environment: environment), traffic)
        case .notInThisEnvironment(let code):
            guard mayHop else {
                return finish(.notFound(detail: "errorCode \(code) in \(environment) and in \(environment.other)"))
            }
            mayHop = false
            traffic.hops += 1
            environment = environment.other
            attempt = 0
            send()
        case .notFound(let code):
            finish(.notFound(detail: "errorCode \(code) from \(environment)"))
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

/// How a request ended without a body to read.
enum ServerAPILookupEnd {
    case notFound(detail: String)
    case unverified(detail: String)
    case configuration(detail: String)

    func lookup<Value>() -> ServerAPILookup<Value> {
        switch self {
        case .notFound(let detail): .notFound(detail: detail)
        case .unverified(let detail): .unverified(detail: detail)
        case .configuration(let detail): .configuration(detail: detail)
        }
    }
}
