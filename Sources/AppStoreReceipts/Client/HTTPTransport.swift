import Foundation

/// Sends HTTP requests and reports what came back. The seam between the exchange driver (every
/// conversation with Apple, verifyReceipt and the App Store Server API) and the network:
/// `CurlMultiTransport` by default, `URLSessionTransport` as the fallback (`HTTPTransportKind`,
/// `--http-client`), `TestSupport`'s scripted transport on a virtual clock for tests.
///
/// Threading: `send` is called concurrently from any of the job's threads and returns at once;
/// `completion` runs exactly once on a thread of the transport's, and must return quickly (the
/// transport's other exchanges wait behind it). Implementations must finish every request within its
/// timeout (plus a small margin) and never block threads of `DispatchQueue.global()`.
///
/// Memory: an implementation keeps at most its `AnswerSizeLimit` of any answer's body, and fails the
/// exchange `answerTooLarge` past it, so answers cost bounded memory however large they are.
public protocol HTTPTransport: Sendable {
    /// Sends `request` once `notBefore` (an instant on `clock`: when the throttle's token is due) has
    /// come; the request's timeout counts from then.
    func send(
        _ request: HTTPClientRequest, notBefore: Duration, on clock: any ThrottleClock,
        completion: @escaping HTTPCompletion)

    /// Ends every request still waiting for its `notBefore`, now and from now on, as a failure without
    /// sending it; requests already sent go on. Called when the run stops (a signal), so no throttle
    /// wait outlasts it.
    func cancelWaiting()
}

/// Where a transport hands the outcome of one request.
public typealias HTTPCompletion = @Sendable (HTTPExchangeResult) -> Void

/// One HTTP request as the transports take it: only values, so it crosses threads freely.
public struct HTTPClientRequest: Sendable {
    public var method: HTTPMethod
    public var url: URL
    /// Empty for a GET.
    public var body: Data
    public var headers: [String: String]
    public var timeout: Duration

    public init(method: HTTPMethod, url: URL, body: Data = Data(), headers: [String: String], timeout: Duration) {
        self.method = method
        self.url = url
        self.body = body
        self.headers = headers
        self.timeout = timeout
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
