import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Synchronization

/// A loopback verifyReceipt that answers as a test scripts it: the smallest stand-in for Apple, for the
/// client's tests and for the built binary's end-to-end paths.
///
/// Each request gets the answer set for its `receipt-data` (`answer(_:with:)`), else the next answer of
/// its endpoint's script (the last one repeats). Every request is recorded (`received`).
public final class ScriptedAppleServer: Sendable {
    /// One in-app purchase as verifyReceipt lists it.
    public struct Purchase: Sendable {
        public var product: String
        public var transactionID: String
        public var originalTransactionID: String
        public var purchased: Date
        public var expires: Date?
        public var cancelled: Date?
        public var upgraded: Bool

        public init(
            product: String,
            transactionID: String,
            originalTransactionID: String,
            purchased: Date,
            expires: Date? = nil,
            cancelled: Date? = nil,
            upgraded: Bool = false
        ) {
            self.product = product
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.purchased = purchased
            self.expires = expires
            self.cancelled = cancelled
            self.upgraded = upgraded
        }

        var json: String {
            func ms(_ date: Date) -> String { String(Int64(date.timeIntervalSince1970 * 1000)) }
            var fields = [
                #""product_id":"\#(product)""#, #""transaction_id":"\#(transactionID)""#,
                #""original_transaction_id":"\#(originalTransactionID)""#, #""quantity":"1""#,
                #""purchase_date_ms":"\#(ms(purchased))""#,
                #""original_purchase_date_ms":"\#(ms(purchased))""#, #""in_app_ownership_type":"PURCHASED""#,
            ]
            if let expires { fields.append(#""expires_date_ms":"\#(ms(expires))""#) }
            if let cancelled { fields.append(#""cancellation_date_ms":"\#(ms(cancelled))","cancellation_reason":"0""#) }
            if upgraded { fields.append(#""is_upgraded":"true""#) }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    public indirect enum Answer: Sendable {
        /// Status 0 listing `purchases` as the receipt's in-app purchases and its latest receipt info.
        /// Asked at the other environment's endpoint, 21007 or 21008, as Apple redirects.
        case valid([Purchase], environment: String = "Production")
        /// `{"status": N}` plus `extra` members (e.g. `,"is_retryable":true`); status 0 also names the
        /// endpoint's environment and carries a receipt without purchases.
        case status(Int, extra: String = "")
        /// Any HTTP answer.
        case http(Int, body: String, headers: [(String, String)] = [])
        /// No answer: the connection is closed after 20 s.
        case silence
        /// Another answer, `delay` later.
        case delayed(Duration, Answer)
        /// Another answer, once `count` requests are held here at the same time: a client that keeps fewer in
        /// flight never fills the gate, which opens for everyone after 30 s and stays open, the test then
        /// reading `gateFilled` false. Proves concurrency by arrivals, not by a clock a loaded machine slows.
        case together(Int, Answer)

        /// HTTP 503 with an HTML page, as Apple's front end answers in an outage.
        public static let serviceUnavailable = Answer.http(
            503, body: "<html><body>Service Unavailable</body></html>", headers: [("Content-Type", "text/html")])
    }

    public struct Received: Sendable {
        /// `production` or `sandbox`.
        public let endpoint: String
        public let body: String
    }

    /// What the handler threads share with the test.
    final class State: Sendable {
        let scripts: Mutex<[String: [Answer]]>
        let byReceipt = Mutex<[String: Answer]>([:])
        let log = Mutex<[Received]>([])
        /// `.together`'s gate: requests arrived at it, and whether it opened because enough were there.
        let gate = Mutex<(arrived: Int, filled: Bool, expired: Bool)>((0, false, false))

        /// Holds the calling connection's thread until `count` requests are held together, or 30 s.
        func holdTogether(_ count: Int) {
            gate.withLock { gate in
                gate.arrived += 1
                if gate.arrived >= count, !gate.expired { gate.filled = true }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if gate.withLock({ $0.filled || $0.expired }) { return }
                Thread.sleep(forTimeInterval: 0.005)
            }
            gate.withLock { $0.expired = true }
        }

        init(_ scripts: [String: [Answer]]) { self.scripts = Mutex(scripts) }

        /// The receipt's own answer, else the next of the endpoint's script. The body is decoded only
        /// when some receipt has an answer of its own.
        func answer(to body: [UInt8], at endpoint: String) -> Answer {
            let byReceipt = self.byReceipt.withLock { $0 }
            if !byReceipt.isEmpty,
                let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
                let receipt = object["receipt-data"] as? String,
                let answer = byReceipt[receipt]
            {
                return answer
            }
            return scripts.withLock { scripts in
                let script = scripts[endpoint] ?? []
                if script.count > 1 { scripts[endpoint] = Array(script.dropFirst()) }
                return script.first ?? .status(21009)
            }
        }
    }

    private let state: State
    public let server: HTTPServer

    /// Starts the server on a free loopback port.
    /// - Parameters:
    ///   - production: the production endpoint's script; by default every request is answered 21009
    ///     (Apple's internal data access error, retryable), so a receipt the test did not script never
    ///     passes for valid.
    ///   - sandbox: the sandbox endpoint's script; by default 21008 (a production receipt).
    public init(production: [Answer] = [.status(21009)], sandbox: [Answer] = [.status(21008)]) throws {
        let state = State(["production": production, "sandbox": sandbox])
        self.state = state
        server = HTTPServer(configuration: HTTPServer.Configuration(requestTimeout: .seconds(30))) { request in
            let endpoint = request.path.contains("sandbox") ? "sandbox" : "production"
            let body = String(decoding: request.body, as: UTF8.self)
            state.log.withLock { $0.append(Received(endpoint: endpoint, body: body)) }
            let answer = state.answer(to: request.body, at: endpoint)
            if case .together(let count, let then) = answer {
                state.holdTogether(count)
                return Self.response(then, endpoint: endpoint)
            }
            return Self.response(answer, endpoint: endpoint)
        }
        try server.start()
    }

    /// Answers every request for `receipt` (its base64 `receipt-data`) with `answer`, at either endpoint.
    public func answer(_ receipt: String, with answer: Answer) {
        state.byReceipt.withLock { $0[receipt] = answer }
    }

    /// Answers every request for a receipt without an answer of its own with `answer`, at either endpoint.
    public func answerEverythingElse(with answer: Answer) {
        state.scripts.withLock { $0 = ["production": [answer], "sandbox": [answer]] }
    }

    public var productionURL: URL { URL(string: "http://\(server.authority)/production/verifyReceipt")! }
    public var sandboxURL: URL { URL(string: "http://\(server.authority)/sandbox/verifyReceipt")! }

    /// The environment for the built binary: this server as both endpoints.
    public var environment: [String: String] {
        [
            "APPLE_VERIFY_URL_PRODUCTION": productionURL.absoluteString,
            "APPLE_VERIFY_URL_SANDBOX": sandboxURL.absoluteString,
        ]
    }

    public var received: [Received] { state.log.withLock { $0 } }
    public var endpoints: [String] { received.map(\.endpoint) }
    /// Whether a `.together` gate opened because its count of requests was held at once.
    public var gateFilled: Bool { state.gate.withLock { $0.filled } }

    /// A client for this server with fast backoff, so tests spend their time on what they check.
    public func client(
        transport: HTTPTransportKind = .curl,
        environment: AppStoreEnvironment = .production,
        sharedSecret: String? = nil,
        timeout: Duration = .seconds(5),
        maxAttempts: Int = 4,
        concurrency: Int = 8,
        rate: Double = 1000
    ) -> VerifyReceiptRig {
        VerifyReceiptRig(
            productionURL: productionURL, sandboxURL: sandboxURL, transport: transport, environment: environment,
            sharedSecret: sharedSecret, timeout: timeout, maxAttempts: maxAttempts, concurrency: concurrency,
            rate: rate, backoff: BackoffPolicy(base: .milliseconds(10), cap: .milliseconds(50), seed: 7))
    }

    static func response(_ answer: Answer, endpoint: String) -> HTTPResponse {
        switch answer {
        case .valid(let purchases, let environment):
            if (environment == "Sandbox") != (endpoint == "sandbox") {
                return .json(Data(#"{"status":\#(environment == "Sandbox" ? 21007 : 21008)}"#.utf8))
            }
            let list = purchases.map(\.json).joined(separator: ",")
            return .json(
                Data(
                    (#"{"status":0,"environment":"\#(environment)","receipt":{"bundle_id":"com.example.app","#
                        + #""in_app":[\#(list)]},"latest_receipt_info":[\#(list)]}"#).utf8))
        case .status(let status, let extra):
            let environment = endpoint == "sandbox" ? "Sandbox" : "Production"
            let body =
                status == 0
                ? #"{"status":0,"environment":"\#(environment)","receipt":{"bundle_id":"com.example.app","in_app":[]}"#
                    + #"\#(extra)}"#
                : #"{"status":\#(status)\#(extra)}"#
            return .json(Data(body.utf8))
        case .http(let status, let body, let headers):
            return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        case .silence:
            return .closeWithoutResponse(after: .seconds(20))
        case .delayed(let delay, let answer):
            return response(answer, endpoint: endpoint).delayed(by: delay)
        case .together(_, let answer):
            return response(answer, endpoint: endpoint)
        }
    }

    deinit { server.stop() }
}
