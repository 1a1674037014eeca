import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Synchronization

/// A loopback App Store Server API that answers as a test scripts it: the stand-in for Apple behind
/// the client's tests and the built binary's `--backend server-api` runs.
///
/// It owns a minted signing chain (every transaction and renewal info it sends is signed by it, unless
/// the script asks for a forgery) and an API key pair: the `.p8` and the chain's root are written to a
/// temporary directory, because the binary reads both from files. Each request gets the next answer
/// scripted for its token's `bid`, else for its (environment, endpoint, id), else for its (environment,
/// endpoint) (the last answer repeats); an unscripted id is unknown (404, 4040010), and an unscripted
/// order id invalid (status 1), as Apple answers.
/// Every request is logged with its bearer token decoded and checked against the key, so tests can
/// assert what Apple would see.
public final class ScriptedServerAPI: Sendable {
    /// The endpoints, as the client names them (`ServerAPIEndpoint`).
    public typealias Endpoint = ServerAPIEndpoint

    public indirect enum Answer: Sendable {
        /// A Get Transaction History page.
        case history([ServerAPIScriptTransaction], hasMore: Bool = false, revision: String = "r-end")
        /// Get All Subscription Statuses: per subscription, its status (1-5), last transaction and renewal info.
        case statuses([ServerAPIScriptStatus])
        /// Apple's error body `{"errorCode": code}` with `status` (404 for 4040010, 500 for 5000001...).
        case error(Int, status: Int)
        /// HTTP 429 with `Retry-After` `retryAfter` after the answer is sent, in Unix milliseconds as Apple
        /// sends it (so a script of several 429s asks each time for a wait ahead of that answer).
        case tooManyRequests(retryAfter: Duration)
        /// HTTP 401 without a body, as Apple answers a token it refuses.
        case unauthorized
        /// Any HTTP answer (an HTML page, a cut body).
        case raw(status: Int, body: String, headers: [(String, String)] = [])
        /// A Get Notification History page; `paginationToken` when more pages follow.
        case notifications([ServerAPIScriptNotification], paginationToken: String? = nil)
        /// Look Up Order ID: `status` 0 (valid) with the order's transactions, or 1 (invalid, none).
        case orderLookup(status: Int, [ServerAPIScriptTransaction])
        /// Another answer, `delay` later.
        case delayed(Duration, Answer)

        /// HTTP 200 with an HTML page, as a captive proxy or a misrouted load balancer answers.
        public static let htmlPage = Answer.raw(
            status: 200, body: "<html><body>Service Unavailable</body></html>", headers: [("Content-Type", "text/html")]
        )
    }

    /// One request as the server saw it.
    public struct Received: Sendable {
        public let environment: AppStoreEnvironment
        public let endpoint: Endpoint?
        public let method: String
        public let path: String
        public let query: String?
        /// The id in the path, percent-decoded; for Get Notification History, the page's
        /// `paginationToken` (empty on a first page).
        public let id: String
        /// The request's body (Get Notification History's `startDate`/`endDate`).
        public let body: String
        public let receivedAt: ContinuousClock.Instant
        public let wallTime: Date
        /// The bearer token, decoded; nil without one.
        public let token: ReceivedToken?

        /// Get Notification History's `[startDate, endDate)`, when the body names both.
        public var notificationSpan: Range<Date>? {
            guard
                let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                let start = (object["startDate"] as? NSNumber)?.doubleValue,
                let end = (object["endDate"] as? NSNumber)?.doubleValue, start < end
            else { return nil }
            return Date(timeIntervalSince1970: start / 1000)..<Date(timeIntervalSince1970: end / 1000)
        }

        public func queryValue(_ name: String) -> String? {
            HTTPRequest(method: method, target: path + (query.map { "?" + $0 } ?? "")).queryValue(name)
        }
    }

    package let chain: SigningChain
    package let apiKey: ES256Key
    public let keyID = "KEY1234567"
    public let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    /// Holds the `.p8`, the chain's files and the root the binary is pointed at.
    public let directory: URL
    public let server: HTTPServer
    private let state: State

    final class State: Sendable {
        let scripts = Mutex<[String: [Answer]]>([:])
        let log = Mutex<[Received]>([])

        func next(_ keys: [String]) -> Answer? {
            scripts.withLock { scripts in
                for key in keys {
                    guard let script = scripts[key], let first = script.first else { continue }
                    if script.count > 1 { scripts[key] = Array(script.dropFirst()) }
                    return first
                }
                return nil
            }
        }
    }

    /// Mints the chain (valid `validity` around now) and the API key, and starts on a free loopback port.
    public init(chainValidity: ClosedRange<Date>? = nil) throws {
        let validity =
            chainValidity ?? Date(timeIntervalSinceNow: -400 * 86_400)...Date(timeIntervalSinceNow: 400 * 86_400)
        let chain = try SigningChain.mint(notBefore: validity.lowerBound, notAfter: validity.upperBound)
        guard let apiKey = ES256Key.generate(), let pem = apiKey.pkcs8PEM else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "cannot generate the API key"])
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-server-api-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try chain.write(to: directory)
        guard
            FileManager.default.createFile(
                atPath: directory.appendingPathComponent("api-key.p8").path, contents: Data(pem),
                attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        self.chain = chain
        self.apiKey = apiKey
        let state = State()
        self.state = state
        server = HTTPServer(configuration: HTTPServer.Configuration(requestTimeout: .seconds(30))) {
            [chain, apiKey] request in
            let received = Self.received(request, key: apiKey)
            state.log.withLock { $0.append(received) }
            let scope = "\(received.environment) \(received.endpoint?.rawValue ?? "?")"
            let answer =
                state.next(["bid " + (received.token?.bid ?? ""), scope + " " + received.id, scope + " *"])
                ?? Self.unscripted(received.endpoint)
            return Self.response(answer, to: received, chain: chain)
        }
        try server.start()
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What an unscripted request is answered: Apple's "nothing" for its endpoint.
    static func unscripted(_ endpoint: Endpoint?) -> Answer {
        switch endpoint {
        case .notificationHistory: .notifications([])
        case .orderLookup: .orderLookup(status: 1, [])
        default: .error(4_040_010, status: 404)
        }
    }

    /// Scripts the answers to `endpoint` for `id` in `environment`, in order; the last one repeats.
    public func script(_ environment: AppStoreEnvironment, _ endpoint: Endpoint, id: String, _ answers: [Answer]) {
        state.scripts.withLock { $0["\(environment) \(endpoint.rawValue) \(id)"] = answers }
    }

    /// Scripts the answers to every id not scripted on its own, at `endpoint` in `environment`.
    public func scriptEveryID(_ environment: AppStoreEnvironment, _ endpoint: Endpoint, _ answers: [Answer]) {
        state.scripts.withLock { $0["\(environment) \(endpoint.rawValue) *"] = answers }
    }

    /// Scripts the answers to every request whose token's `bid` is `bundleID`, before any other script: Apple
    /// refusing the key for one app (401, 4000002) whatever the id.
    public func scriptBundleID(_ bundleID: String, _ answers: [Answer]) {
        state.scripts.withLock { $0["bid " + bundleID] = answers }
    }

    /// Scripts `answers` for every request anywhere.
    public func scriptEverything(_ answers: [Answer]) {
        for environment in AppStoreEnvironment.allCases {
            for endpoint in Endpoint.allCases {
                scriptEveryID(environment, endpoint, answers)
            }
        }
    }

    public var received: [Received] { state.log.withLock { $0 } }

    /// The requests about stored rows: every one but Get Notification History's, which a night reads
    /// whatever rows it holds.
    public var receivedAboutPurchases: [Received] { received.filter { $0.endpoint != .notificationHistory } }

    /// `transaction` signed by this server's chain, as StoreKit 2 hands it to an app (a JWS row).
    public func sign(_ transaction: ServerAPIScriptTransaction, environment: String = "Production") -> String {
        transaction.jws(chain, host: environment)
    }

    /// `receipt` (an app receipt) as base64, signed by this server's chain as Apple signs app receipts
    /// (PKCS#7, SHA-256 with the chain's RSA-2048 receipt leaf): what the built binary verifies under `--backend server-api` when pointed at
    /// `rootFile` (`environment` does). Its creation date must lie inside the chain's validity.
    public func signedAppReceipt(_ receipt: LocalReceipt) -> String {
        guard let signer = chain.receiptSigner else { preconditionFailure("a minted chain signs receipts") }
        return signer.base64(receipt)
    }

    /// The `.p8`'s base64 lines, for "the key appears nowhere" checks.
    public var keyLines: [String] {
        String(decoding: apiKey.pkcs8PEM ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("-----") }
    }

    public var keyFile: String { directory.appendingPathComponent("api-key.p8").path }
    public var rootFile: String { directory.appendingPathComponent(SigningChain.rootFile).path }
    public func baseURL(_ environment: AppStoreEnvironment) -> URL {
        URL(string: "http://\(server.authority)/\(environment)")!
    }

    /// The environment for the built binary: this server as both hosts, its key, its root trusted, and
    /// the Apple ID its notifications carry for `com.example`.
    public var environment: [String: String] {
        [
            "APPLE_APP_APPLE_IDS": "com.example=\(ServerAPIScriptNotification.scriptedAppAppleID)",
            "APPLE_SERVER_API_URL_PRODUCTION": baseURL(.production).absoluteString,
            "APPLE_SERVER_API_URL_SANDBOX": baseURL(.sandbox).absoluteString,
            "APPLE_API_KEY_FILE": keyFile, "APPLE_API_KEY_ID": keyID, "APPLE_API_ISSUER_ID": issuerID,
            "APPLE_ROOT_CERTIFICATES": rootFile,
        ]
    }

    /// A client of this server trusting its chain, with millisecond backoff, and its driver.
    package func client(
        maxAttempts: Int = 4, maxWait: Duration = .seconds(5), rate: Double = 1000, concurrency: Int = 8,
        tokens: ServerAPITokens? = nil, timeout: Duration = .seconds(5)
    ) -> ServerAPIRig {
        ServerAPIRig(
            client: ServerAPIClient(
                configuration: ServerAPIClient.Configuration(
                    productionURL: baseURL(.production), sandboxURL: baseURL(.sandbox), timeout: timeout,
                    budget: VerifyReceiptRetryBudget(maxAttempts: maxAttempts, maxWait: maxWait),
                    backoff: BackoffPolicy(base: .milliseconds(10), cap: .milliseconds(50), seed: 7)),
                verifier: SignedDataVerifier(anchors: [TrustAnchor(chain.root)])),
            driver: ExchangeDriver(
                transport: HTTPTransportKind.curl.makeTransport(maxConnectionsPerHost: concurrency, timeout: timeout),
                rate: rate, maxInFlight: concurrency,
                tokens: tokens ?? ServerAPITokens(key: apiKey, keyID: keyID, issuerID: issuerID)))
    }

    static func received(_ request: HTTPRequest, key: ES256Key) -> Received {
        let parts = request.path.split(separator: "/").map(String.init)
        // A path no endpoint has is still logged (endpoint nil), with the environment its prefix names.
        let route = ServerAPIEndpoint.route(request.path)
        let environment = route?.environment ?? (parts.first == "sandbox" ? .sandbox : .production)
        let endpoint = route?.endpoint
        let authorization = request.headers["Authorization"] ?? ""
        let token =
            authorization.hasPrefix("Bearer ")
            ? ReceivedToken(String(authorization.dropFirst("Bearer ".count)), key: key) : nil
        return Received(
            environment: environment, endpoint: endpoint, method: request.method, path: request.path,
            query: request.query,
            // A notification history page is told by its token (none: a first page).
            id: endpoint == .notificationHistory
                ? HTTPRequest(method: request.method, target: request.target).queryValue("paginationToken") ?? ""
                : route?.id ?? (parts.last ?? "").removingPercentEncoding ?? "",
            body: String(decoding: request.body, as: UTF8.self), receivedAt: .now, wallTime: Date(), token: token)
    }

    static func response(_ answer: Answer, to request: Received, chain: SigningChain) -> HTTPResponse {
        let environment = request.environment
        let appleEnvironment = environment == .sandbox ? "Sandbox" : "Production"
        switch answer {
        case .history(let transactions, let hasMore, let revision):
            let signed = transactions.map { "\"" + $0.jws(chain, host: appleEnvironment) + "\"" }
            let body =
                "{\"revision\":\"\(revision)\",\"hasMore\":\(hasMore),\"bundleId\":\"com.example\","
                + "\"appAppleId\":1234,\"environment\":\"\(appleEnvironment)\","
                + "\"signedTransactions\":[\(signed.joined(separator: ","))]}"
            return .json(Data(body.utf8))
        case .statuses(let statuses):
            let lasts = statuses.map { $0.json(chain, host: appleEnvironment) }
            let body =
                "{\"environment\":\"\(appleEnvironment)\",\"bundleId\":\"com.example\",\"appAppleId\":1234,"
                + "\"data\":[{\"subscriptionGroupIdentifier\":\"group\",\"lastTransactions\":["
                + lasts.joined(separator: ",") + "]}]}"
            return .json(Data(body.utf8))
        case .notifications(let records, let token):
            // As Apple does, a page lists only the records signed within the request's span.
            let span = request.notificationSpan
            let items = records.filter { span?.contains($0.signed) ?? true }.map {
                $0.record(chain, host: appleEnvironment)
            }
            let more = token.map { ",\"hasMore\":true,\"paginationToken\":\"\($0)\"" } ?? ",\"hasMore\":false"
            return .json(Data(("{\"notificationHistory\":[" + items.joined(separator: ",") + "]" + more + "}").utf8))
        case .orderLookup(let status, let transactions):
            let signed = transactions.map { "\"" + $0.jws(chain, host: appleEnvironment) + "\"" }
            let list = signed.isEmpty ? "" : ",\"signedTransactions\":[" + signed.joined(separator: ",") + "]"
            return .json(Data(("{\"status\":\(status)" + list + "}").utf8))
        case .error(let code, let status):
            return .json(Data("{\"errorCode\":\(code),\"errorMessage\":\"scripted\"}".utf8), status: status)
        case .tooManyRequests(let retryAfter):
            let (seconds, attoseconds) = retryAfter.components
            let instant = Date().timeIntervalSince1970 + Double(seconds) + Double(attoseconds) / 1e18
            let milliseconds = Int64((instant * 1000).rounded(.up))
            return .json(
                Data("{\"errorCode\":4290000,\"errorMessage\":\"Rate limit exceeded.\"}".utf8), status: 429,
                headers: [("Retry-After", String(milliseconds))])
        case .unauthorized:
            return HTTPResponse(status: 401, headers: [], body: Data())
        case .raw(let status, let body, let headers):
            return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        case .delayed(let delay, let answer):
            return response(answer, to: request, chain: chain).delayed(by: delay)
        }
    }
}

/// A bearer token as the scripted server received it: header and claims decoded, and whether its
/// signature is the API key's.
public struct ReceivedToken: Sendable, Equatable {
    public let raw: String
    public let alg: String?
    public let kid: String?
    public let typ: String?
    public let iss: String?
    public let aud: String?
    public let bid: String?
    public let iat: Int64?
    public let exp: Int64?
    public let signatureVerifies: Bool

    init(_ raw: String, key: ES256Key) {
        self.raw = raw
        let parts = raw.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func object(_ index: Int) -> [String: Any] {
            guard parts.count == 3, let bytes = Self.base64URL(parts[index]) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] ?? [:]
        }
        let header = object(0)
        let claims = object(1)
        alg = header["alg"] as? String
        kid = header["kid"] as? String
        typ = header["typ"] as? String
        iss = claims["iss"] as? String
        aud = claims["aud"] as? String
        bid = claims["bid"] as? String
        iat = (claims["iat"] as? NSNumber)?.int64Value
        exp = (claims["exp"] as? NSNumber)?.int64Value
        if parts.count == 3, let signature = Self.base64URL(parts[2]) {
            let input = Array((parts[0] + "." + parts[1]).utf8)
            signatureVerifies = input.withUnsafeBytes { key.verify(signature: Array(signature), of: $0) }
        } else {
            signatureVerifies = false
        }
    }

    /// Decodes one unpadded base64url segment.
    static func base64URL(_ segment: String) -> Data? { Base64URL.decodeLenient(segment).map { Data($0) } }
}
