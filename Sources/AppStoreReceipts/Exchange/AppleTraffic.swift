/// What the run sent to Apple and what came back, as the run's figures count it: added up by
/// `ExchangeDriver` request by request, and handed to the run once per exchange.
public struct AppleTraffic: Sendable {
    public var requests = 0
    /// Requests repeated after a transient failure.
    public var retries = 0
    /// HTTP 429 answers.
    public var throttled = 0
    /// Questions asked of the other environment.
    public var hops = 0
    /// Each request's time, throttle waits excluded.
    public var latencies: [Duration] = []
    /// Requests per endpoint (`verify_receipt`, or the App Store Server API's `transaction_history`, …).
    public var requestsByEndpoint: [String: Int] = [:]
    /// The App Store Server API's requests by answer (`ServerAPIAnswer.tallyKey`: `200`, `404/4040010`,
    /// `transport`); empty for verifyReceipt.
    public var serverAPIAnswers: [String: Int] = [:]

    public init(
        requests: Int = 0, retries: Int = 0, throttled: Int = 0, hops: Int = 0, latencies: [Duration] = [],
        requestsByEndpoint: [String: Int] = [:], serverAPIAnswers: [String: Int] = [:]
    ) {
        self.requests = requests
        self.retries = retries
        self.throttled = throttled
        self.hops = hops
        self.latencies = latencies
        self.requestsByEndpoint = requestsByEndpoint
        self.serverAPIAnswers = serverAPIAnswers
    }

    /// Counts one request to `endpoint` that took `latency` and ended in `result`.
    mutating func record(_ result: HTTPExchangeResult, endpoint: AppleEndpoint, latency: Duration) {
        requests += 1
        requestsByEndpoint[endpoint.description, default: 0] += 1
        latencies.append(latency)
        if case .response(let reply) = result, reply.statusCode == 429 { throttled += 1 }
        if case .serverAPI = endpoint { serverAPIAnswers[ServerAPIAnswer.tallyKey(result), default: 0] += 1 }
    }

    public mutating func add(_ other: AppleTraffic) {
        requests += other.requests
        retries += other.retries
        throttled += other.throttled
        hops += other.hops
        latencies += other.latencies
        requestsByEndpoint.merge(other.requestsByEndpoint, uniquingKeysWith: +)
        serverAPIAnswers.merge(other.serverAPIAnswers, uniquingKeysWith: +)
    }
}
