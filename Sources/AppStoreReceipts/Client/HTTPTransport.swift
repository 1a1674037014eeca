import Foundation

/// Sends one HTTP request and reports what came back. The seam between the job's Apple clients
/// (verifyReceipt and the App Store Server API) and the network: `CurlMultiTransport` by default,
/// `URLSessionTransport` as the fallback (`HTTPTransportKind`, `--http-client`), other transports for
/// tests.
///
/// Threading: `post` may be called concurrently from many threads and blocks the calling thread until
/// the exchange ends; `send` is called concurrently from any of the job's threads and returns at once.
/// Implementations must be thread-safe, must return within `timeout` (plus a small margin), and must
/// never block threads of `DispatchQueue.global()` themselves.
///
/// Memory: an implementation keeps at most its `AnswerSizeLimit` of any answer's body, and fails the
/// exchange `answerTooLarge` past it, so answers cost bounded memory however large they are.
public protocol HTTPTransport: Sendable {
    func post(_ url: URL, body: Data, headers: [String: String], timeout: Duration) -> HTTPExchangeResult

    /// Sends once `wait` (measured on `clock`) has passed: the throttle's wait for a token. `timeout`
    /// counts from the start. The default sleeps the calling thread, then posts; a transport with a
    /// thread of its own can start the request at that time instead, and spare the caller a sleep and
    /// a wake-up per request.
    func post(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration, startingIn wait: Duration,
        clock: any ThrottleClock
    ) -> HTTPExchangeResult

    /// Like `post(…startingIn:clock:)`, but returns at once and hands the outcome to `completion`,
    /// called exactly once on a thread of the transport's. `completion` must return quickly: it runs
    /// where the transport's other exchanges are waiting. The default runs the blocking `post` on a
    /// thread of its own per exchange; a transport with a thread of its own calls back from there, and
    /// spares the caller a thread per exchange in flight.
    func send(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration, startingIn wait: Duration,
        clock: any ThrottleClock, completion: @escaping @Sendable (HTTPExchangeResult) -> Void)

    /// `send` with a method: the Server API's GETs (no body) beside verifyReceipt's POSTs. The default
    /// sends POSTs through `send(_:body:…)` and fails GETs, which only the real transports implement.
    func send(
        _ method: HTTPMethod, _ url: URL, body: Data, headers: [String: String], timeout: Duration,
        startingIn wait: Duration, clock: any ThrottleClock,
        completion: @escaping @Sendable (HTTPExchangeResult) -> Void)

    /// Ends every exchange still waiting out its `startingIn` wait, now and from now on, as a failure
    /// without sending it; exchanges already sent go on. Called when the client stops (a signal), so no
    /// throttle wait outlasts it. The default does nothing: such waits then end as they would have.
    func abandonWaitingRequests()
}

extension HTTPTransport {
    public func abandonWaitingRequests() {}

    public func send(
        _ method: HTTPMethod, _ url: URL, body: Data, headers: [String: String], timeout: Duration,
        startingIn wait: Duration, clock: any ThrottleClock,
        completion: @escaping @Sendable (HTTPExchangeResult) -> Void
    ) {
        guard method == .post else {
            return completion(.failed(.connectionFailed(detail: "this transport sends POST only")))
        }
        send(
            url, body: body, headers: headers, timeout: timeout, startingIn: wait, clock: clock, completion: completion)
    }

    public func post(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration, startingIn wait: Duration,
        clock: any ThrottleClock
    ) -> HTTPExchangeResult {
        if wait > .zero { clock.sleep(for: wait) }
        return post(url, body: body, headers: headers, timeout: timeout)
    }

    public func send(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration, startingIn wait: Duration,
        clock: any ThrottleClock, completion: @escaping @Sendable (HTTPExchangeResult) -> Void
    ) {
        // A thread of its own, never the global queue's: the exchange blocks it (DESIGN, "Concurrency on Linux").
        Thread.detachNewThread {
            completion(post(url, body: body, headers: headers, timeout: timeout, startingIn: wait, clock: clock))
        }
    }
}

/// The outcome of one HTTP exchange.
public enum HTTPExchangeResult: Sendable {
    case response(HTTPReply)
    case failed(VerifyReceiptTransportFailure)
}

/// An HTTP response as the client needs it.
public struct HTTPReply: Sendable {
    public var statusCode: Int
    public var body: Data
    private var fields: HTTPHeaderFields

    public init(statusCode: Int, headers: [String: String], body: Data) {
        self.statusCode = statusCode
        fields = .parsed(
            Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first }))
        self.body = body
    }

    /// A reply whose header lines (`Name: value`, each ending in LF or CRLF) are kept as received and
    /// read only when asked: the job reads one header of each reply, and building a dictionary of
    /// them all was a tenth of the curl loop's work.
    init(statusCode: Int, headerBlock: [UInt8], body: Data) {
        self.statusCode = statusCode
        fields = .raw(headerBlock)
        self.body = body
    }

    /// Every header, names lowercased; the first of repeated names wins.
    public var headers: [String: String] {
        switch fields {
        case .parsed(let headers): headers
        case .raw(let block): HTTPHeaderFields.parse(block)
        }
    }

    /// The value of the header `lowercasedName` (the first, if repeated), without building the others.
    public func header(_ lowercasedName: String) -> String? {
        switch fields {
        case .parsed(let headers): headers[lowercasedName]
        case .raw(let block): HTTPHeaderFields.value(of: lowercasedName, in: block)
        }
    }

    /// `HTTP 503, body starts "<html><head><title>Service Unavailable…"`: enough to recognise an
    /// error page in a log, never more than 60 printable characters of the body.
    public var summary: String {
        let prefix = body.prefix(60)
        guard !prefix.isEmpty else { return "HTTP \(statusCode), empty body" }
        let printable = String(decoding: prefix, as: UTF8.self).unicodeScalars.map { scalar -> Character in
            scalar.value >= 0x20 && scalar.value < 0x7F ? Character(scalar) : " "
        }
        var text = String(printable).trimmingCharacters(in: .whitespaces)
        // A base64 run could be receipt data echoed back by a proxy: never print it.
        if text.count >= 40, text.allSatisfy({ $0.isLetter || $0.isNumber || "+/=".contains($0) }) {
            text = "[base64-like data]"
        }
        return "HTTP \(statusCode), body starts \"\(text)\(body.count > 60 ? "…" : "")\""
    }
}
