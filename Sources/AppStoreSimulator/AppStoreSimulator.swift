import AppStoreReceipts
import Foundation
import Synchronization

/// A local verifyReceipt: `POST /production/verifyReceipt`, `POST /sandbox/verifyReceipt` and
/// `GET /stats` over a `SimulatedWorld`, with the latency, rate limit and faults of `SimulatorOptions`;
/// with a `ServerAPISetup`, also the App Store Server API (`AppStoreSimulator+ServerAPI`).
///
/// ```swift
/// let simulator = AppStoreSimulator(world: SimulatedWorld(users: 2000, seed: 1, asOf: asOf))
/// try simulator.start()                      // port 0: a free port
/// let client = … productionURL: simulator.productionURL, sandboxURL: simulator.sandboxURL …
/// print(simulator.stats.requests)
/// simulator.stop()
/// ```
///
/// Each request: the rate limit (429 with `Retry-After`), then a fault decision (`FaultInjector`), then
/// the answer (`WorldReceiptLocator` + `AppleAnswerer`), delivered after the request's latency through
/// `HTTPResponse.delay`, so no thread sleeps in the handler.
///
/// Threading: `Sendable`. `handle(_:)` runs on the HTTP server's connection threads, concurrently;
/// everything it touches is immutable or behind `Mutex`/`Atomic`. `start`/`stop` may be called from
/// any thread (not from a handler). Receipt data and the shared secret are never logged or reported.
public final class AppStoreSimulator: Sendable, HTTPHandler {
    public let world: SimulatedWorld
    public let options: SimulatorOptions
    public let answerer: AppleAnswerer
    public let locator: WorldReceiptLocator
    let faults: FaultInjector
    let limiter: RateLimiter?
    let recorder: SimulatorRecorder
    /// The App Store Server API, when given its chain and key (`--pki-dir`); nil answers its routes 401.
    let serverAPI: ServerAPIService?
    private let server = Mutex<HTTPServer?>(nil)

    public convenience init(world: SimulatedWorld, options: SimulatorOptions = SimulatorOptions()) {
        self.init(world: world, options: options, serverAPI: nil)
    }

    /// With `serverAPI`, also the App Store Server API under `/production/inApps/…` and
    /// `/sandbox/inApps/…`. `units` replaces the world's units (tests that need an unusual account).
    package init(
        world: SimulatedWorld, options: SimulatorOptions = SimulatorOptions(), serverAPI: ServerAPISetup?,
        units: (@Sendable (Int) -> WorldUnit)? = nil
    ) {
        self.world = world
        self.options = options
        answerer = AppleAnswerer(world: world, sharedSecret: options.sharedSecret)
        // The chain of `--pki-dir` signed the world's app receipts too.
        let locator = WorldReceiptLocator(world: world, signingChain: serverAPI?.chain)
        self.locator = locator
        faults = FaultInjector(options: options)
        limiter = options.rateLimit.map { RateLimiter(rate: $0, burst: options.rateLimitBurst) }
        recorder = SimulatorRecorder(logCapacity: options.requestLogCapacity)
        self.serverAPI = serverAPI.map {
            ServerAPIService(setup: $0, world: world, options: options, units: units ?? { locator.unit($0) })
        }
    }

    // MARK: Serving

    /// Starts listening on `host:port` (port 0 picks a free one; read it from `port` or the URLs).
    /// - Throws: `HTTPServerError` when the address cannot be bound, or when already started.
    public func start(host: String = "127.0.0.1", port: UInt16 = 0) throws(HTTPServerError) {
        let created = try server.withLock { server throws(HTTPServerError) -> HTTPServer in
            guard server == nil else { throw .alreadyStarted }
            // Bodies carry receipts of up to 4 MB of base64 (the decoder's own limit), plus JSON.
            let new = HTTPServer(
                host: host, port: port, maxBodyBytes: LocalReceiptDecoder.maxBase64Length + 65_536,
                configuration: HTTPServer.Configuration(stopGracePeriod: .seconds(1)), handler: self)
            server = new
            return new
        }
        try created.start()
    }

    /// The HTTP server once started.
    public var httpServer: HTTPServer? { server.withLock { $0 } }

    public var port: UInt16 { httpServer?.port ?? 0 }

    /// `http://host:port`.
    public var baseURL: URL { URL(string: "http://\(httpServer?.authority ?? "127.0.0.1:0")")! }
    public var productionURL: URL { baseURL.appendingPathComponent("production/verifyReceipt") }
    public var sandboxURL: URL { baseURL.appendingPathComponent("sandbox/verifyReceipt") }
    public var statsURL: URL { baseURL.appendingPathComponent("stats") }

    /// Stops gracefully and returns when stopped (see `HTTPServer.stop()`).
    public func stop() { httpServer?.stop() }

    /// Stops on SIGINT/SIGTERM (for `simulator serve`); see `HTTPServer.stopOnSignals`.
    public func stopOnSignals() { httpServer?.stopOnSignals() }

    public func waitUntilStopped() { httpServer?.waitUntilStopped() }

    /// What the simulator has done so far.
    public var stats: SimulatorStats {
        var stats = recorder.snapshot()
        stats.server = httpServer?.stats ?? HTTPServerStats()
        return stats
    }

    /// When each verifyReceipt request arrived, as offsets from the simulator's creation (up to
    /// `SimulatorOptions.requestLogCapacity`): to check that no one-second window exceeded a client's rate.
    public var requestLog: [Duration] { recorder.requestLog() }

    // MARK: Handling

    public func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        switch request.path {
        case "/production/verifyReceipt": return verifyReceipt(request, endpoint: .production)
        case "/sandbox/verifyReceipt": return verifyReceipt(request, endpoint: .sandbox)
        case "/stats":
            guard request.method == "GET" || request.method == "HEAD" else {
                return .error(405, nil, headers: [("Allow", "GET, HEAD")])
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .json(try encoder.encode(stats))
        default:
            if let (endpoint, environment, id) = ServerAPIEndpoint.route(request.path) {
                return serverAPI(request, endpoint: endpoint, environment: environment, id: id)
            }
            return .error(404, "no route for \(request.path)")
        }
    }

    private func verifyReceipt(_ request: HTTPRequest, endpoint: AppStoreEnvironment) -> HTTPResponse {
        let arrival = recorder.arrival()
        let decision = faults.decide(requestNumber: arrival.number)
        let delay = decision.delay > .zero ? decision.delay : nil
        func record(status: Int?, http: Int?, fault: FaultKind? = nil, limited: Bool = false, delay: Duration?) {
            recorder.record(
                endpoint: endpoint.rawValue, arrivedAt: arrival.at, appleStatus: status, httpStatus: http,
                fault: fault, rateLimited: limited, delay: delay)
        }

        if let limiter, let wait = limiter.admit(now: arrival.at) {
            record(status: nil, http: 429, limited: true, delay: delay)
            return HTTPResponse.error(
                429, "rate limit exceeded",
                headers: [("Retry-After", String(RateLimiter.retryAfterSeconds(wait)))]
            )
            .withDelay(delay)
        }

        if let fault = decision.fault {
            let (response, status, http) = inject(fault)
            let applied = fault == .stall ? nil : delay
            record(status: status, http: http, fault: fault, delay: applied)
            return fault == .stall ? response : response.withDelay(delay)
        }

        // Apple answers a GET with a JSON status, not an HTTP error.
        let answer = request.method == "POST" ? self.answer(body: request.body, endpoint: endpoint) : .bare(21000)
        record(status: answer.status, http: 200, delay: delay)
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "application/json")], body: answer.jsonBytes, delay: delay)
    }

    /// The answer to a request body, faults aside: the pure path, also for tests and benchmarks.
    public func answer(body: [UInt8], endpoint: AppStoreEnvironment) -> AppleAnswer {
        guard let request = VerifyReceiptRequestBody(json: body) else { return .bare(21000) }
        guard let receiptData = request.receiptData else { return .bare(21002) }
        let (identity, unit) = locator.resolve(receiptData)
        // The unit is rebuilt (or fetched) once per request and handed to the answerer.
        return answerer.answer(
            identity, unit: { index in unit?.index == index ? unit! : locator.unit(index) },
            endpoint: endpoint, password: request.password,
            excludeOldTransactions: request.excludeOldTransactions)
    }

    /// An injected fault's response, the Apple status it carries and its HTTP status (nil: none is sent).
    private func inject(_ fault: FaultKind) -> (HTTPResponse, Int?, Int?) {
        switch fault {
        case .status21005:
            return (.json(Data(AppleAnswer.bare(21005).jsonBytes)), 21005, 200)
        case .status21009:
            return (.json(Data(AppleAnswer.bare(21009).jsonBytes)), 21009, 200)
        case .status21199Retryable:
            return (.json(Data(AppleAnswer.bare(21199, isRetryable: true).jsonBytes)), 21199, 200)
        case .status21199NotRetryable:
            return (.json(Data(AppleAnswer.bare(21199, isRetryable: false).jsonBytes)), 21199, 200)
        case .serviceUnavailable:
            let page =
                "<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1>"
                + "<p>The server is temporarily unable to service your request.</p></body></html>"
            let response = HTTPResponse(
                status: 503,
                headers: [
                    ("Content-Type", "text/html"),
                    ("Retry-After", String(options.serviceUnavailableRetryAfterSeconds)),
                ],
                body: Array(page.utf8))
            return (response, nil, 503)
        case .connectionReset:
            return (.reset(), nil, nil)
        case .stall:
            return (.closeWithoutResponse(after: options.stallDuration), nil, nil)
        }
    }
}

extension HTTPResponse {
    func withDelay(_ delay: Duration?) -> HTTPResponse {
        guard let delay else { return self }
        return delayed(by: delay)
    }
}
