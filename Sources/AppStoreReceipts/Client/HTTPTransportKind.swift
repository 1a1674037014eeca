/// Which `HTTPTransport` talks to Apple (`--http-client`, `RECON_HTTP_CLIENT`).
public enum HTTPTransportKind: String, CaseIterable, Codable, Sendable, CustomStringConvertible {
    /// `CurlMultiTransport`: the default, about a tenth of URLSession's CPU per request on Linux.
    case curl
    /// `URLSessionTransport`: kept as a fallback should libcurl misbehave somewhere.
    case urlSession = "urlsession"

    public var description: String { rawValue }

    /// A transport for up to `maxConnectionsPerHost` requests in flight, keeping at most `answerLimit`
    /// bytes of each answer; one per process (both kinds hold threads and connections for their whole life).
    public func makeTransport(
        maxConnectionsPerHost: Int, timeout: Duration, answerLimit: AnswerSizeLimit = .standard
    ) -> any HTTPTransport {
        switch self {
        case .curl:
            CurlMultiTransport(maxConnectionsPerHost: maxConnectionsPerHost, timeout: timeout, answerLimit: answerLimit)
        case .urlSession:
            URLSessionTransport(
                maxConnectionsPerHost: maxConnectionsPerHost, timeout: timeout, answerLimit: answerLimit)
        }
    }
}
