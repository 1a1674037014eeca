import Foundation

/// What a handler wants done with a request: a response to write, possibly late, or a fault to inject.
///
/// The server owns the framing headers: whatever the handler puts in `Content-Length`, `Transfer-Encoding`,
/// `Date` or `Connection` is replaced, except that `Connection: close` from the handler is honoured
/// (the connection closes after this response).
public struct HTTPResponse: Sendable {
    /// What the server does once `delay` has passed.
    public enum Action: Sendable, Equatable {
        /// Write the response.
        case respond
        /// Close with SO_LINGER 0: the client sees a TCP RST ("connection reset by peer").
        case resetConnection
        /// Close with a FIN and no response bytes: the client sees an empty reply / EOF.
        case closeWithoutResponse
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Waited out by the server after the handler has returned and before `action` (so the handler's own
    /// resources are free); a delay longer than the client's timeout is a stall. A stopping server cuts
    /// delays that outlast its grace period.
    public var delay: Duration?
    public var action: Action

    public init(
        status: Int,
        headers: [(String, String)] = [],
        body: [UInt8] = [],
        delay: Duration? = nil,
        action: Action = .respond
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.action = action
    }

    public init(
        status: Int, headers: [(String, String)] = [], body: Data, delay: Duration? = nil, action: Action = .respond
    ) {
        self.init(status: status, headers: headers, body: [UInt8](body), delay: delay, action: action)
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: Array(text.utf8)
        )
    }

    /// An `application/json` response around already-encoded JSON.
    public static func json(_ body: Data, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// Fault injection: reset the connection (after `delay`, if given) instead of answering.
    public static func reset(after delay: Duration? = nil) -> HTTPResponse {
        HTTPResponse(status: 0, delay: delay, action: .resetConnection)
    }

    /// Fault injection: close the connection (after `delay`, if given) without answering.
    public static func closeWithoutResponse(after delay: Duration? = nil) -> HTTPResponse {
        HTTPResponse(status: 0, delay: delay, action: .closeWithoutResponse)
    }

    /// The same response, written `delay` later.
    public func delayed(by delay: Duration) -> HTTPResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// A short plain-text error response, e.g. `HTTPResponse.error(404)` → "404 Not Found".
    public static func error(_ status: Int, _ detail: String? = nil, headers: [(String, String)] = []) -> HTTPResponse {
        let line = "\(status) \(HTTPStatus.reasonPhrase(status))" + (detail.map { ": \($0)" } ?? "")
        return .text(line + "\n", status: status, headers: headers)
    }
}
