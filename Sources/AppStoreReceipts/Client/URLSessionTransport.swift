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
///   because the Linux implementation drops fractions; the exact timeout is enforced here by a timer.
///
/// Bodies reach the delegate piece by piece (a completion-handler task would buffer the whole body
/// first, however large), so an answer past `answerLimit` is cancelled as soon as it is known to be.
/// Nothing blocks a thread: the token's wait is a `StoppableWaits` wait, the answer comes through the
/// delegate.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let exchanges: URLSessionExchanges
    /// The token waits, which `cancelWaiting` ends; made on the first request's clock.
    private let waits = Mutex<StoppableWaits?>(nil)
    private let cancelled = Atomic(false)

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
    }

    public func send(
        _ request: HTTPClientRequest, notBefore: Duration, on clock: any ThrottleClock,
        completion: @escaping HTTPCompletion
    ) {
        let wait = notBefore - clock.now()
        guard wait > .zero else { return start(request, clock: clock, completion: completion) }
        waits(clock).after(wait) { [self] stopped in
            guard !stopped else {
                return completion(.failed(.connectionFailed(detail: "not sent: the client stopped")))
            }
            start(request, clock: clock, completion: completion)
        }
    }

    public func cancelWaiting() {
        cancelled.store(true, ordering: .releasing)
        waits.withLock { $0 }?.stop()
    }

    private func waits(_ clock: any ThrottleClock) -> StoppableWaits {
        let waits = self.waits.withLock { waits in
            if waits == nil { waits = StoppableWaits(clock: clock) }
            return waits!
        }
        // A wait made before `cancelWaiting`'s first call saw none must still end at once.
        if cancelled.load(ordering: .acquiring) { waits.stop() }
        return waits
    }

    private func start(_ request: HTTPClientRequest, clock: any ThrottleClock, completion: @escaping HTTPCompletion) {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        if request.method == .post { urlRequest.httpBody = request.body }
        urlRequest.timeoutInterval = Self.wholeSeconds(request.timeout)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }

        // Whichever comes first, the answer or the exact timeout, finishes the request.
        let finished = Atomic(false)
        let finish: HTTPCompletion = { result in
            guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
            completion(result)
        }
        let task = session.dataTask(with: urlRequest)
        exchanges.begin(task, completion: finish)
        task.resume()
        clock.schedule(after: request.timeout + .milliseconds(250)) { [exchanges] in
            guard !finished.load(ordering: .acquiring) else { return }
            exchanges.forget(task)
            task.cancel()
            finish(.failed(.timedOut))
        }
    }

    private static func wholeSeconds(_ duration: Duration) -> TimeInterval {
        let components = duration.components
        return TimeInterval(max(1, components.seconds + (components.attoseconds > 0 ? 1 : 0)))
    }
}
