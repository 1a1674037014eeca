import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Synchronization

/// A loopback verifyReceipt whose answers a test scripts: each request to an endpoint takes the next
/// answer of that endpoint's script (the last one repeats). It records what it was sent.
final class ScriptedAppleServer: Sendable {
    enum Answer: Sendable {
        case status(Int, extra: String = "")
        case http(Int, body: String, headers: [(String, String)] = [])
        case silence
        case delayed(Duration, status: Int)
    }

    struct Received: Sendable {
        let endpoint: String
        let body: String
    }

    /// What the handler threads share with the test.
    final class State: Sendable {
        let scripts: Mutex<[String: [Answer]]>
        let log = Mutex<[Received]>([])
        init(_ scripts: [String: [Answer]]) { self.scripts = Mutex(scripts) }
    }

    private let state: State
    let server: HTTPServer

    init(production: [Answer], sandbox: [Answer] = [.status(21008)]) throws {
        let state = State(["production": production, "sandbox": sandbox])
        self.state = state
        server = HTTPServer(configuration: HTTPServer.Configuration(requestTimeout: .seconds(30))) { request in
            let endpoint = request.path.contains("sandbox") ? "sandbox" : "production"
            state.log.withLock { $0.append(Received(endpoint: endpoint, body: String(decoding: request.body, as: UTF8.self))) }
            let answer = state.scripts.withLock { scripts -> Answer in
                let script = scripts[endpoint] ?? []
                if script.count > 1 { scripts[endpoint] = Array(script.dropFirst()) }
                return script.first ?? .status(21009)
            }
            switch answer {
            case .status(let status, let extra):
                let environment = endpoint == "sandbox" ? "Sandbox" : "Production"
                let body = status == 0
                    ? #"{"status":0,"environment":"\#(environment)","receipt":{"bundle_id":"com.example.app","in_app":[]}\#(extra)}"#
                    : #"{"status":\#(status)\#(extra)}"#
                return .json(Data(body.utf8))
            case .http(let status, let body, let headers):
                return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
            case .silence:
                return .closeWithoutResponse(after: .seconds(20))
            case .delayed(let delay, let status):
                return HTTPResponse.json(Data(#"{"status":\#(status)}"#.utf8)).delayed(by: delay)
            }
        }
        try server.start()
    }

    var productionURL: URL { URL(string: "http://\(server.authority)/production/verifyReceipt")! }
    var sandboxURL: URL { URL(string: "http://\(server.authority)/sandbox/verifyReceipt")! }
    var received: [Received] { state.log.withLock { $0 } }
    var endpoints: [String] { received.map(\.endpoint) }

    /// A client for this server with fast backoff, so tests spend their time on what they check.
    func client(
        transport: HTTPTransportKind = .curl,
        environment: AppStoreEnvironment = .production,
        sharedSecret: String? = nil,
        timeout: Duration = .seconds(5),
        maxAttempts: Int = 4,
        concurrency: Int = 8,
        rate: Double = 1000
    ) -> VerifyReceiptClient {
        let configuration = VerifyReceiptClient.Configuration(
            productionURL: productionURL, sandboxURL: sandboxURL, environment: environment, sharedSecret: sharedSecret,
            timeout: timeout, budget: VerifyReceiptRetryBudget(maxAttempts: maxAttempts),
            backoff: BackoffPolicy(base: .milliseconds(10), cap: .milliseconds(50), seed: 7))
        return VerifyReceiptClient(
            configuration: configuration,
            transport: transport.makeTransport(maxConnectionsPerHost: concurrency, timeout: timeout),
            throttle: RequestThrottle(bucket: TokenBucket(rate: rate), maxInFlight: concurrency))
    }

    deinit { server.stop() }
}
