import Foundation

/// Verifies one receipt with verifyReceipt, following CONTRACT §5: the configured environment's
/// endpoint first, one hop on 21007/21008, retries with exponential backoff and full jitter (honouring
/// `Retry-After`) within the attempt budget, every request through the shared `RequestThrottle`.
///
/// Waits are bounded: no retry waits longer than the budget's `maxWait` (a longer `Retry-After` ends the
/// receipt `unverified` instead), and `stop` ends every wait at once.
///
/// Threading: `verify` blocks the calling thread for the whole verification, sleeps between retries
/// included, and is meant to be called from many threads at once (the job's own threads, never
/// `DispatchQueue.global()`); `start` returns at once and calls back; `stop` may be called from any
/// thread. The only mutable state is whether the client was stopped, with its pending waits
/// (`RetryWaits`).
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
        /// Attempts per endpoint (`--max-attempts`), the 21002 budget, and the longest wait
        /// (`--max-retry-wait`).
        public var budget: VerifyReceiptRetryBudget
        public var backoff: BackoffPolicy
        public var userAgent: String
        /// Whether reports carry Apple's `latest_receipt` (receipt data). The job never reads it, and
        /// it is often the answer's largest value: decoding it is a copy made only to be freed.
        public var keepsLatestReceipt: Bool

        public init(
            productionURL: URL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")!,
            sandboxURL: URL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!,
            environment: AppStoreEnvironment = .production,
            sharedSecret: String? = nil,
            timeout: Duration = .seconds(30),
            budget: VerifyReceiptRetryBudget = VerifyReceiptRetryBudget(),
            backoff: BackoffPolicy = BackoffPolicy(),
            userAgent: String = "receipt-recon",
            keepsLatestReceipt: Bool = true
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.environment = environment
            self.sharedSecret = sharedSecret
            self.timeout = timeout
            self.budget = budget
            self.backoff = backoff
            self.userAgent = userAgent
            self.keepsLatestReceipt = keepsLatestReceipt
        }

        func url(for environment: AppStoreEnvironment) -> URL {
            environment == .production ? productionURL : sandboxURL
        }
    }

    public let configuration: Configuration
    let transport: any HTTPTransport
    let throttle: RequestThrottle
    let clock: any ThrottleClock
    /// The same for every request, so built once.
    let requestHeaders: [String: String]
    /// Every retry's wait, and whether the client was stopped.
    let waits = RetryWaits()

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
        requestHeaders = [
            "Content-Type": "application/json", "Accept": "application/json", "User-Agent": configuration.userAgent,
        ]
    }

    /// Verifies `receiptData` (base64 as stored) and returns the final verdict with everything that
    /// happened on the way. Never throws: every failure is a verdict.
    /// - Parameter shouldStop: checked before each retry; when it returns true the verification ends
    ///   `unverified` instead of asking Apple again (a run that is draining or was aborted).
    public func verify(receiptData: String, shouldStop: () -> Bool = { false }) -> VerificationReport {
        var progress: VerificationProgress
        switch VerificationProgress.begin(receiptData: receiptData, configuration: configuration) {
        case .failure(let early): return early.report
        case .success(let begun): progress = begun
        }
        var delay = Duration.zero
        while true {
            guard sleep(for: delay), !waits.isStopped else { return progress.stopped() }
            let started = clock.now()
            var tokenWait = Duration.zero
            let result = throttle.withDeferredPermit { wait in
                tokenWait = wait
                return transport.post(
                    configuration.url(for: progress.attempt.endpoint), body: progress.body,
                    headers: requestHeaders, timeout: configuration.timeout, startingIn: wait, clock: clock)
            }
            switch progress.record(
                result, latency: clock.now() - started - tokenWait, configuration: configuration,
                now: clock.wallClock(), shouldStop: { shouldStop() || waits.isStopped })
            {
            case .finished(let report): return report
            case .send(after: let backoff): delay = backoff
            }
        }
    }

    /// `verify` without blocking: the same requests, retries and verdict, handed to `completion`.
    ///
    /// Nothing waits for Apple: the transport calls back when an answer arrives, and the rest of the
    /// verification (decoding the answer, the next request) runs in a closure given to `executor`, which
    /// must run it soon on a thread that may block briefly (the job's workers), never on the transport's
    /// own thread. `completion` runs there too, once. The job's lanes use this: one thread per request in
    /// flight cost a thread switch per answer.
    public func start(
        receiptData: String,
        shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (VerificationReport) -> Void
    ) {
        switch VerificationProgress.begin(receiptData: receiptData, configuration: configuration) {
        case .failure(let early):
            executor { completion(early.report) }
        case .success(let progress) where waits.isStopped:
            executor { completion(progress.stopped()) }
        case .success(let progress):
            PendingVerification(
                client: self, progress: progress, shouldStop: shouldStop, executor: executor,
                completion: completion
            ).send()
        }
    }

    /// Ends every wait at once, for a run that got SIGTERM or SIGINT: verifications waiting out a
    /// backoff or a `Retry-After`, or for an in-flight slot or a throttle token, end `unverified`
    /// ("stopped"), and so does every verification started or due for a retry afterwards, without a
    /// request. Requests already sent run to their answer or their timeout, so draining the run takes
    /// at most `--timeout`.
    public func stop() {
        waits.stop()
        transport.abandonWaitingRequests()
    }

    /// Runs `work(false)` after `delay` (a retry's backoff) without holding a thread meanwhile, or
    /// `work(true)` once the client stops; on a test's fake clock, sleeps on it first.
    func after(_ delay: Duration, _ work: @escaping @Sendable (_ stopped: Bool) -> Void) {
        waits.after(delay, on: clock, work)
    }

    /// Blocks for `delay` (on a test's fake clock, sleeps on it). - Returns: false when the client stopped.
    private func sleep(for delay: Duration) -> Bool {
        guard delay > .zero else { return true }
        guard clock is SystemThrottleClock else {
            clock.sleep(for: delay)
            return !waits.isStopped
        }
        return waits.sleep(for: delay)
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
