import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTPTransport` over one long-lived `URLSession` (the only file that sees URLSession).
///
/// Linux specifics measured on this toolchain (DESIGN.md, "Concurrency on Linux"):
/// - one session for the whole process: short-lived sessions crash in teardown;
/// - `httpMaximumConnectionsPerHost` defaults to 6 and is enforced, so it is set to the in-flight cap;
/// - request and resource timeouts are set explicitly (defaults 60 s and 7 days), in whole seconds
///   because the Linux implementation drops fractions; the exact timeout is enforced by `post`'s wait;
/// - `post` blocks the calling lane on a semaphore that the completion handler signals; it never runs
///   on, or blocks, the global queue.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// - Parameter maxConnectionsPerHost: the in-flight cap; more requests than this would queue
    ///   silently inside URLSession.
    public init(maxConnectionsPerHost: Int, timeout: Duration) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        let seconds = Self.wholeSeconds(timeout)
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds + 5
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    public func post(_ url: URL, body: Data, headers: [String: String], timeout: Duration) -> HTTPExchangeResult {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.timeoutInterval = Self.wholeSeconds(timeout)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }

        let outcome = Mutex<HTTPExchangeResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            let result: HTTPExchangeResult
            if let http = response as? HTTPURLResponse {
                var replyHeaders: [String: String] = [:]
                for case (let name as String, let value as String) in http.allHeaderFields {
                    replyHeaders[name] = value
                }
                result = .response(HTTPReply(statusCode: http.statusCode, headers: replyHeaders, body: data ?? Data()))
            } else {
                result = .failed(Self.failure(error))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        task.resume()
        let components = timeout.components
        let wait = Double(components.seconds) + Double(components.attoseconds) / 1e18
        // The semaphore enforces the exact timeout (URLSession's is whole seconds), plus a small margin.
        guard done.wait(timeout: .now() + wait + 0.25) == .success else {
            task.cancel()
            return .failed(.timedOut)
        }
        return outcome.withLock { $0 } ?? .failed(.connectionFailed(detail: "no result"))
    }

    private static func wholeSeconds(_ duration: Duration) -> TimeInterval {
        let components = duration.components
        return TimeInterval(max(1, components.seconds + (components.attoseconds > 0 ? 1 : 0)))
    }

    private static func failure(_ error: (any Error)?) -> VerifyReceiptTransportFailure {
        guard let error = error as? URLError else {
            return .connectionFailed(detail: error.map { "\(type(of: $0))" } ?? "no response")
        }
        switch error.code {
        case .timedOut: return .timedOut
        case .cannotConnectToHost: return .connectionFailed(detail: "connection refused")
        case .networkConnectionLost: return .connectionFailed(detail: "connection lost")
        case .cannotFindHost, .dnsLookupFailed: return .connectionFailed(detail: "host not found")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return .connectionFailed(detail: "TLS failure (URLError \(error.code.rawValue))")
        default: return .connectionFailed(detail: "URLError \(error.code.rawValue)")
        }
    }
}
