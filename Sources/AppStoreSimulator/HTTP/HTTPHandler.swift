/// Turns a request into a response. This is the seam the verifyReceipt simulator plugs into.
///
/// Threading contract:
/// - `handle(_:)` runs on the thread of the connection the request came in on (see `HTTPServer`): calls
///   for different connections run concurrently, calls for one connection run one at a time, in order.
///   Implementations must therefore be thread-safe (`Sendable`; shared state behind `Mutex`/`Atomic`).
/// - It may block or sleep, since nothing else waits on that thread, but to inject latency or a stall
///   prefer returning `HTTPResponse.delay`: the server applies it and the handler is done.
/// - A thrown error becomes a generic `500 Internal Server Error`; the error text is not sent.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) throws -> HTTPResponse
}

/// An `HTTPHandler` made from a closure.
public struct HTTPHandlerClosure: HTTPHandler {
    private let body: @Sendable (HTTPRequest) throws -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        try body(request)
    }
}
