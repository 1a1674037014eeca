import AppStoreSimulator
import Foundation
import Synchronization

/// A loopback verifyReceipt that answers per receipt, as a test scripts it: the smallest stand-in for
/// Apple that lets the job's end-to-end paths be exercised through the real binary.
final class FakeApple: Sendable {
    struct Purchase: Sendable {
        var product: String
        var transactionID: String
        var originalTransactionID: String
        var purchased: Date
        var expires: Date?
        var cancelled: Date?
        var upgraded = false

        var json: String {
            func ms(_ date: Date) -> String { String(Int64(date.timeIntervalSince1970 * 1000)) }
            var fields = [#""product_id":"\#(product)""#, #""transaction_id":"\#(transactionID)""#,
                          #""original_transaction_id":"\#(originalTransactionID)""#, #""quantity":"1""#,
                          #""purchase_date_ms":"\#(ms(purchased))""#, #""original_purchase_date_ms":"\#(ms(purchased))""#,
                          #""in_app_ownership_type":"PURCHASED""#]
            if let expires { fields.append(#""expires_date_ms":"\#(ms(expires))""#) }
            if let cancelled { fields.append(#""cancellation_date_ms":"\#(ms(cancelled))","cancellation_reason":"0""#) }
            if upgraded { fields.append(#""is_upgraded":"true""#) }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    enum Answer: Sendable {
        case valid([Purchase], environment: String = "Production")
        case status(Int)
        case serviceUnavailable
        case slow(Duration, [Purchase])
    }

    final class State: Sendable {
        let answers = Mutex<[String: Answer]>([:])
        let fallback = Mutex<Answer>(.status(21009))
    }

    let state = State()
    let server: HTTPServer

    init() throws {
        let state = self.state
        server = HTTPServer(configuration: HTTPServer.Configuration(requestTimeout: .seconds(30))) { request in
            let endpoint = request.path.contains("sandbox") ? "sandbox" : "production"
            let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
            let receipt = body?["receipt-data"] as? String ?? ""
            let answer = state.answers.withLock { $0[receipt] } ?? state.fallback.withLock { $0 }
            switch answer {
            case .valid(let purchases, let environment):
                if (environment == "Sandbox") != (endpoint == "sandbox") {
                    return .json(Data(#"{"status":\#(environment == "Sandbox" ? 21007 : 21008)}"#.utf8))
                }
                return .json(Data(Self.body(purchases, environment: environment).utf8))
            case .status(let status):
                return .json(Data(#"{"status":\#(status)}"#.utf8))
            case .serviceUnavailable:
                return HTTPResponse(status: 503, headers: [("Content-Type", "text/html")],
                                    body: Data("<html><body>Service Unavailable</body></html>".utf8))
            case .slow(let delay, let purchases):
                return HTTPResponse.json(Data(Self.body(purchases, environment: "Production").utf8)).delayed(by: delay)
            }
        }
        try server.start()
    }

    static func body(_ purchases: [Purchase], environment: String) -> String {
        let list = purchases.map(\.json).joined(separator: ",")
        return #"{"status":0,"environment":"\#(environment)","receipt":{"bundle_id":"com.example.app","in_app":[\#(list)]},"latest_receipt_info":[\#(list)]}"#
    }

    func answer(_ receipt: String, with answer: Answer) {
        state.answers.withLock { $0[receipt] = answer }
    }

    func answerEverythingElse(with answer: Answer) {
        state.fallback.withLock { $0 = answer }
    }

    /// The environment for the built binary: this server as both endpoints.
    var environment: [String: String] {
        ["APPLE_VERIFY_URL_PRODUCTION": "http://\(server.authority)/production/verifyReceipt",
         "APPLE_VERIFY_URL_SANDBOX": "http://\(server.authority)/sandbox/verifyReceipt"]
    }

    deinit { server.stop() }
}
