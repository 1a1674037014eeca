import Foundation
import Synchronization

/// Performs what exchanges ask for, for every kind of conversation with Apple alike: waits out
/// backoffs, passes each request through the throttle (its endpoint's token bucket and the run's
/// in-flight cap), signs the Server API's token into it, hands it to the transport to start when its
/// token is due, counts the traffic, and brings the answer back to the exchange on the run's executor.
/// One per process: one transport, one in-flight cap, one bucket per endpoint and environment (the
/// sandbox's at its own `sandboxRate`, as Apple limits it apart).
///
/// Stops, two kinds: a draining run (`ExchangeContext.isDraining`) sends no new question and no retry,
/// but finishes questions already asked; a signal (`stop`) ends every wait at once, backoffs and
/// throttle waits alike, and sends nothing more. Requests already sent run to their answer or their
/// timeout, so draining after a signal takes at most `--timeout`.
///
/// Budget: with a `RequestBudget`, every request is granted by it just before it goes to the throttle
/// (after the draining check and after its backoff), once per request sent, so the budget's sums are
/// what was sent. `.wait` is waited out like a backoff (a signal ends it: `.stop(.duringBackoff)`),
/// then the draining check and the budget are asked again; `.spent` ends the exchange's asking
/// (`.stop(.beforeAsking)`) and is told to `ExchangeContext.budgetSpent` once per endpoint and
/// environment.
///
/// Threading: `run` and `stop` may be called from any thread and return at once. An exchange is
/// touched by one thread at a time: the caller of `run`, then the executor's thread with each answer
/// (or the clock's timer thread, to send a retry). An exchange that finishes at `start` completes on
/// the caller's thread before `run` returns. The budget is asked on the caller of `run` or on the
/// executor, never on the timer thread (it may block for a database round trip).
public final class ExchangeDriver: Sendable {
    public let clock: any ThrottleClock
    let transport: any HTTPTransport
    let throttle: RequestThrottle
    private let buckets: [AppleLimitKey: TokenBucket]
    private let tokens: ServerAPITokens?
    let waits: StoppableWaits
    let budget: (any RequestBudget)?
    /// Limits whose `.spent` was already reported to a context.
    private let spentReported = Mutex<Set<AppleLimitKey>>([])

    /// - Parameters:
    ///   - rate: requests per second for each production endpoint (`--rate`); `burst` nil is the job's
    ///     own burst.
    ///   - sandboxRate: requests per second for each sandbox endpoint (`--sandbox-rate`); nil paces the
    ///     sandbox at `rate` (in buckets of its own all the same).
    ///   - maxInFlight: requests in flight at once, all endpoints together (`--concurrency`).
    ///   - tokens: the App Store Server API's key; nil when only verifyReceipt is asked.
    ///   - budget: the requests the run may send per endpoint and environment (`--max-requests-per-hour`,
    ///     `--sandbox-max-requests-per-hour`); nil for none.
    public init(
        transport: any HTTPTransport, rate: Double, sandboxRate: Double? = nil, burst: Double? = nil,
        maxInFlight: Int,
        tokens: ServerAPITokens? = nil, clock: any ThrottleClock = SystemThrottleClock(),
        budget: (any RequestBudget)? = nil
    ) {
        self.transport = transport
        self.budget = budget
        self.clock = clock
        self.tokens = tokens
        throttle = RequestThrottle(maxInFlight: maxInFlight)
        waits = StoppableWaits(clock: clock)
        buckets = Dictionary(
            uniqueKeysWithValues: AppleLimitKey.all.map { key in
                let pace = key.environment == .sandbox ? sandboxRate ?? rate : rate
                return (
                    key,
                    burst.map { TokenBucket(rate: pace, burst: $0, clock: clock) }
                        ?? TokenBucket(rate: pace, clock: clock)
                )
            })
    }

    /// Drives `exchange` to its result, which goes to `completion` on `context.executor` (or on this
    /// thread before `run` returns, when the exchange needs no request).
    public func run<Exchange: AppleExchange>(
        _ exchange: Exchange, context: ExchangeContext,
        completion: @escaping @Sendable (Exchange.Result) -> Void
    ) {
        let driven = DrivenExchange(exchange, driver: self, context: context, completion: completion)
        driven.begin()
    }

    /// Ends every wait now and sends nothing more (SIGTERM, SIGINT).
    public func stop() {
        waits.stop()
        transport.cancelWaiting()
    }

    /// `request`'s HTTP request with the `Authorization` header it needs.
    func signed(_ request: AppleRequest) -> HTTPClientRequest {
        guard let bearer = request.bearer else { return request.http }
        var http = request.http
        if let tokens {
            http.headers["Authorization"] = "Bearer " + tokens.token(bundleID: bearer.bundleID, fresh: bearer.fresh)
        }
        return http
    }

    /// The most requests that were in flight at once so far.
    public var peakInFlight: Int { throttle.peakInFlight }

    func bucket(_ key: AppleLimitKey) -> TokenBucket { buckets[key]! }

    /// The requests per second `key`'s bucket allows.
    public func rate(_ key: AppleLimitKey) -> Double { bucket(key).rate }

    /// True the first time it is called for `key`: whether its `.spent` is news to the run.
    func reportsSpent(_ key: AppleLimitKey) -> Bool {
        spentReported.withLock { $0.insert(key).inserted }
    }
}

/// One exchange in the driver's hands, with the traffic it has cost so far.
///
/// Threading: `@unchecked Sendable` because it is touched by one thread at a time, in turn (see
/// `ExchangeDriver`); the transport's callback only measures and hands over.
final class DrivenExchange<Exchange: AppleExchange>: @unchecked Sendable {
    private var exchange: Exchange
    private let driver: ExchangeDriver
    private let context: ExchangeContext
    private let completion: @Sendable (Exchange.Result) -> Void
    private var traffic = AppleTraffic()

    init(
        _ exchange: Exchange, driver: ExchangeDriver, context: ExchangeContext,
        completion: @escaping @Sendable (Exchange.Result) -> Void
    ) {
        self.exchange = exchange
        self.driver = driver
        self.context = context
        self.completion = completion
    }

    func begin() {
        proceed(exchange.start())
    }

    private func proceed(_ step: ExchangeStep<Exchange.Result>) {
        switch step {
        case .finish(let result):
            if traffic.requests > 0 { context.recordTraffic(traffic) }
            completion(result)
        case .send(let request, let delay):
            if !request.purpose.isSentWhileDraining, context.isDraining() {
                return proceed(exchange.handle(.stop(.beforeAsking)))
            }
            if request.purpose == .retry, driver.waits.isStopped {
                return proceed(exchange.handle(.stop(.beforeRetrying)))
            }
            guard delay > .zero else { return admit(request) }
            driver.waits.after(delay) { [self] stopped in
                guard !stopped else {
                    return context.executor.run { [self] in proceed(exchange.handle(.stop(.duringBackoff))) }
                }
                // The budget may block for a round trip: not on the clock's timer thread.
                guard driver.budget == nil else { return context.executor.run { [self] in admit(request) } }
                send(request)
            }
        }
    }

    /// Sends `request` once the budget grants it: at once, after the window it names (then the
    /// draining check again, since the run may have stopped taking work meanwhile), or never.
    private func admit(_ request: AppleRequest) {
        guard let budget = driver.budget else { return send(request) }
        // A stopped run sends nothing: no grant is spent on a request `send` would not make.
        guard !driver.waits.isStopped else { return proceed(exchange.handle(.stop(.beforeSending))) }
        switch budget.take(request.limit, purpose: request.purpose) {
        case .granted:
            send(request)
        case .wait(let seconds):
            let bounded = seconds.isFinite ? min(max(0, seconds), 86_400) : 1
            let delay = Duration.milliseconds(Int64((bounded * 1000).rounded(.up)))
            driver.waits.after(delay) { [self] stopped in
                context.executor.run { [self] in
                    if stopped { return proceed(exchange.handle(.stop(.duringBackoff))) }
                    if !request.purpose.isSentWhileDraining, context.isDraining() {
                        return proceed(exchange.handle(.stop(.beforeAsking)))
                    }
                    admit(request)
                }
            }
        case .spent:
            if driver.reportsSpent(request.limit) { context.budgetSpent?(request.limit) }
            proceed(exchange.handle(.stop(.beforeAsking)))
        }
    }

    /// Sends `request` once the throttle grants it a slot: at once, or when another request ends (then
    /// on that request's thread, usually the transport's). A slot granted after a signal is handed back
    /// unused.
    private func send(_ request: AppleRequest) {
        let driver = self.driver
        guard !driver.waits.isStopped else {
            return context.executor.run { [self] in proceed(exchange.handle(.stop(.beforeSending))) }
        }
        let http = driver.signed(request)
        driver.throttle.begin(tokenFrom: driver.bucket(request.limit)) { [self] notBefore in
            guard !driver.waits.isStopped else {
                driver.throttle.end()
                return context.executor.run { [self] in proceed(exchange.handle(.stop(.beforeSending))) }
            }
            let clock = driver.clock
            driver.transport.send(http, notBefore: notBefore, on: clock) { [self] result in
                let latency = clock.now() - notBefore
                driver.throttle.end()
                context.executor.run { [self] in
                    // Counted once sent: a retry or hop the budget or a signal stopped never reached Apple.
                    switch request.purpose {
                    case .retry: traffic.retries += 1
                    case .hop: traffic.hops += 1
                    case .ask, .continuation: break
                    }
                    traffic.record(result, endpoint: request.endpoint, latency: latency)
                    proceed(exchange.handle(.answer(ExchangeAnswer(result, now: clock.wallClock()))))
                }
            }
        }
    }
}
