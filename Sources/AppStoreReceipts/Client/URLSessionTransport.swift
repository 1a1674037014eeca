import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTPTransport` over one long-lived `URLSession` (with `URLSessionExchanges`, the only files that see
/// URLSession).
///
/// Linux specifics measured on this toolchain (DESIGN.md, "Concurrency on Linux"):
/// - one session for the whole process: short-lived sessions crash in teardown;
/// - `httpMaximumConnectionsPerHost` defaults to 6 and is enforced, so it is set to the in-flight cap;
/// - request and resource timeouts are set explicitly (defaults 60 s and 7 days), in whole seconds
///   because the Linux implementation drops fractions; the exact timeout is enforced by `post`'s wait;
/// - `post` blocks the calling lane on a semaphore that the session's delegate signals; it never runs
///   on, or blocks, the global queue.
///
/// Bodies reach the delegate piece by piece (a completion-handler task would buffer the whole body
/// first, however large), so an answer past `answerLimit` is cancelled as soon as it is known to be.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let exchanges: URLSessionExchanges
    /// Opened by `abandonWaitingRequests`: ends the token waits of `post(…startingIn:clock:)`.
    private let abandoned = DispatchGroup()
    private let abandonedOnce = Atomic(false)

    /// - Parameters:
    ///   - maxConnectionsPerHost: the in-flight cap; more requests than this would queue silently
    ///     inside URLSession.
    ///   - answerLimit: the most body bytes kept per answer (`--max-answer-bytes`).
    public init(maxConnectionsPerHost: Int, timeout: Duration, answerLimit: AnswerSizeLimit = .standard) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        let seconds = Self.wholeSeconds(timeout)
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds + 5
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        exchanges = URLSessionExchanges(answerLimit: answerLimit)
        session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
        abandoned.enter()
    }

    public func post(_ url: URL, body: Data, headers: [String: String], timeout: Duration) -> HTTPExchangeResult {
        exchange(.post, url, body: body, headers: headers, timeout: timeout)
    }

    /// A GET or POST on a thread of its own (the exchange blocks it), after the token's wait.
    public func send(
        _ method: HTTPMethod, _ url: URL, body: Data, headers: [String: String], timeout: Duration,
        startingIn wait: Duration, clock: any ThrottleClock,
        completion: @escaping @Sendable (HTTPExchangeResult) -> Void
    ) {
        Thread.detachNewThread { [self] in
            if wait > .zero { clock.sleep(for: wait) }
            completion(exchange(method, url, body: body, headers: headers, timeout: timeout))
        }
    }

    private func exchange(_ method: HTTPMethod, _ url: URL, body: Data, headers: [String: String], timeout: Duration)
        -> HTTPExchangeResult
    {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        if method == .post { request.httpBody = body }
        request.timeoutInterval = Self.wholeSeconds(timeout)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }

        let outcome = Mutex<HTTPExchangeResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request)
        exchanges.begin(task) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        task.resume()
        let components = timeout.components
        let wait = Double(components.seconds) + Double(components.attoseconds) / 1e18
        // The semaphore enforces the exact timeout (URLSession's is whole seconds), plus a small margin.
        guard done.wait(timeout: .now() + wait + 0.25) == .success else {
            exchanges.forget(task)
            task.cancel()
            return .failed(.timedOut)
        }
        return outcome.withLock { $0 } ?? .failed(.connectionFailed(detail: "no result"))
    }

    /// Sleeps out the token's wait, unless the transport abandons waiting requests meanwhile.
    public func post(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration, startingIn wait: Duration,
        clock: any ThrottleClock
    ) -> HTTPExchangeResult {
        if wait > .zero {
            guard clock is SystemThrottleClock else {
                clock.sleep(for: wait)
                return post(url, body: body, headers: headers, timeout: timeout)
            }
            let components = wait.components
            let until =
                DispatchTime.now() + .nanoseconds(Int(components.attoseconds / 1_000_000_000))
                + .seconds(Int(components.seconds))
            if abandoned.wait(timeout: until) == .success {
                return .failed(.connectionFailed(detail: "not sent: the client stopped"))
            }
        }
        return post(url, body: body, headers: headers, timeout: timeout)
    }

    public func abandonWaitingRequests() {
        guard !abandonedOnce.exchange(true, ordering: .acquiringAndReleasing) else { return }
        abandoned.leave()
    }

    private static func wholeSeconds(_ duration: Duration) -> TimeInterval {
        let components = duration.components
        return TimeInterval(max(1, components.seconds + (components.attoseconds > 0 ? 1 : 0)))
    }
}
