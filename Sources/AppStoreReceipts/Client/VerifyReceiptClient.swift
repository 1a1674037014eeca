import Foundation

/// Verifies one receipt with verifyReceipt, following CONTRACT §5: the configured environment's
/// endpoint first, one hop on 21007/21008, retries with exponential backoff and full jitter (honouring
/// `Retry-After`) within the attempt budget, every request through the shared `RequestThrottle`.
///
/// Threading: `verify` blocks the calling thread for the whole verification, sleeps between retries
/// included, and is meant to be called from many lane threads at once (the job's own threads, never
/// `DispatchQueue.global()`). The client holds no mutable state of its own.
public final class VerifyReceiptClient: Sendable {
    public struct Configuration: Sendable {
        public var productionURL: URL
        public var sandboxURL: URL
        /// The environment this database serves: its endpoint is asked first.
        public var environment: AppStoreEnvironment
        /// Sent as `password`; never logged.
        public var sharedSecret: String?
        /// Per-request timeout (`--timeout`).
        public var timeout: Duration
        /// Attempts per endpoint (`--max-attempts`) and the 21002 budget.
        public var budget: VerifyReceiptRetryBudget
        public var backoff: BackoffPolicy
        public var userAgent: String

        public init(
            productionURL: URL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")!,
            sandboxURL: URL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!,
            environment: AppStoreEnvironment = .production,
            sharedSecret: String? = nil,
            timeout: Duration = .seconds(30),
            budget: VerifyReceiptRetryBudget = VerifyReceiptRetryBudget(),
            backoff: BackoffPolicy = BackoffPolicy(),
            userAgent: String = "receipt-recon"
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.environment = environment
            self.sharedSecret = sharedSecret
            self.timeout = timeout
            self.budget = budget
            self.backoff = backoff
            self.userAgent = userAgent
        }

        func url(for environment: AppStoreEnvironment) -> URL {
            environment == .production ? productionURL : sandboxURL
        }
    }

    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let throttle: RequestThrottle
    private let clock: any ThrottleClock
    /// The same for every request, so built once.
    private let requestHeaders: [String: String]

    public init(
        configuration: Configuration,
        transport: any HTTPTransport,
        throttle: RequestThrottle,
        clock: any ThrottleClock = SystemThrottleClock()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.throttle = throttle
        self.clock = clock
        requestHeaders = ["Content-Type": "application/json", "Accept": "application/json", "User-Agent": configuration.userAgent]
    }

    /// Verifies `receiptData` (base64 as stored) and returns the final verdict with everything that
    /// happened on the way. Never throws: every failure is a verdict.
    /// - Parameter shouldStop: checked before each retry; when it returns true the verification ends
    ///   `unverified` instead of asking Apple again (a run that is draining or was aborted).
    public func verify(receiptData: String, shouldStop: () -> Bool = { false }) -> VerificationReport {
        var report = VerificationReport()
        let body: Data
        do {
            body = try VerifyReceiptRequest(receiptData: receiptData, password: configuration.sharedSecret).jsonBody()
        } catch {
            report.finish(.unverified(.retriesExhausted(.transport(.connectionFailed(detail: "request could not be encoded")))),
                          detail: "request could not be encoded")
            return report
        }
        var attempt = VerifyReceiptAttempt(endpoint: configuration.environment, budget: configuration.budget)

        while true {
            let started = clock.now()
            var tokenWait = Duration.zero
            let result = throttle.withDeferredPermit { wait in
                tokenWait = wait
                return transport.post(configuration.url(for: attempt.endpoint), body: body, headers: requestHeaders,
                                      timeout: configuration.timeout, startingIn: wait, clock: clock)
            }
            report.requests += 1
            report.latencies.append(clock.now() - started - tokenWait)
            report.answeredBy = attempt.endpoint

            let exchange: VerifyReceiptExchange
            var detail: String
            switch result {
            case .failed(let failure):
                exchange = .transportFailed(failure)
                detail = "\(attempt.endpoint): \(failure)"
            case .response(let reply):
                exchange = .httpResponse(statusCode: reply.statusCode, retryAfter: reply.header("retry-after"),
                                         bodyData: reply.body)
                if reply.statusCode == 429 { report.throttled += 1 }
                if let response = exchange.response, (200..<300).contains(reply.statusCode) {
                    report.response = response
                    report.appleStatus = response.rawStatus
                    detail = "\(attempt.endpoint): status \(response.rawStatus)"
                } else {
                    detail = "\(attempt.endpoint): \(reply.summary)"
                }
            }

            let verdict = VerifyReceiptClassifier.verdict(for: exchange, attempt: attempt, now: clock.wallClock())
            guard let next = attempt.next(after: verdict) else {
                report.finish(verdict, detail: "\(verdict) (\(detail))")
                return report
            }
            if case .transient(let reason, let retryAfter) = verdict {
                if shouldStop() {
                    report.finish(.unverified(.retriesExhausted(reason)), detail: "stopped before retrying (\(detail))")
                    return report
                }
                report.retries += 1
                clock.sleep(for: configuration.backoff.delay(afterAttempt: attempt.number, retryAfter: retryAfter))
            } else {
                report.hops += 1
            }
            attempt = next
        }
    }
}

/// Everything one verification did: the final verdict, Apple's answer, and the traffic it cost.
public struct VerificationReport: Sendable {
    /// The final verdict (never `reroute` or `transient`).
    public var verdict: VerificationVerdict = .unverified(.unknownStatus(-1))
    /// The last decoded 2xx answer; for a `valid` verdict, Apple's truth about the receipt.
    public var response: VerifyReceiptResponse?
    /// The endpoint that gave the last answer.
    public var answeredBy: AppStoreEnvironment?
    /// The last `status` Apple sent, if any answer decoded.
    public var appleStatus: Int?
    /// HTTP requests sent (attempts on both endpoints).
    public var requests = 0
    /// Requests repeated after a transient failure.
    public var retries = 0
    /// HTTP 429 answers.
    public var throttled = 0
    /// Re-routes (0 or 1).
    public var hops = 0
    /// Time each request took, throttle waits excluded.
    public var latencies: [Duration] = []
    /// One line for logs and `recon_results.detail`; never receipt data or the secret.
    public var detail = ""

    /// The environment Apple says the receipt belongs to: the response's `environment`, else the
    /// endpoint that answered it.
    public var environment: AppStoreEnvironment? {
        response?.environment ?? answeredBy
    }

    mutating func finish(_ verdict: VerificationVerdict, detail: String) {
        self.verdict = verdict
        self.detail = detail
    }
}
