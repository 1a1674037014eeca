import Dispatch
import Foundation

/// `HTTPTransport` over libcurl's multi interface: one thread drives every request of the process, and
/// connections are kept alive between requests.
///
/// Why not URLSession: on Linux it costs about ten times the CPU per request of a loop over curl's
/// multi interface, more than the job's whole CPU budget per receipt.
///
/// Shape: `post` and `send` hand a `CurlRequest` (with the instant its throttle token is due) to the loop
/// thread (`CurlMultiLoop`) under a mutex and wake it through an eventfd if it would sleep past that
/// instant; `post` then blocks its lane on the request's `CurlCompletion`, while `send` returns and the
/// loop calls the completion handler when the answer is in. The loop adds an easy
/// handle (pooled, so none is created per request) to the multi handle, which keeps the connections,
/// and drives it with `curl_multi_socket_action` over epoll.
/// libcurl enforces the per-request timeout to the millisecond; `post` also stops waiting one second
/// after it, as a backstop against a stuck loop.
///
/// HTTPS verifies the peer with the system's CA store (Debian: `ca-certificates`), as libcurl does by
/// default; nothing here turns verification off.
///
/// Threading: `post` is called concurrently from many threads (never from `DispatchQueue.global()`,
/// whose few threads it would block), `send` from any thread; `send`'s handlers run on the loop thread.
/// Releasing the transport stops its thread and frees every handle.
public final class CurlMultiTransport: HTTPTransport {
    /// What the transport has done, for tests and diagnostics.
    public struct Statistics: Sendable, Equatable {
        /// Requests handed to libcurl.
        public var transfers: Int
        /// Easy handles alive, in use or pooled: at most the peak number of requests in flight.
        public var easyHandles: Int
    }

    private let loop: CurlMultiLoop?
    private let answerLimit: AnswerSizeLimit

    /// - Parameters:
    ///   - maxConnectionsPerHost: the in-flight cap (`--concurrency`); libcurl opens at most this many
    ///     connections to one host.
    ///   - timeout: unused beyond symmetry with `URLSessionTransport`: each `post` carries its own.
    ///   - answerLimit: the most body bytes kept per answer (`--max-answer-bytes`).
    public init(maxConnectionsPerHost: Int, timeout: Duration, answerLimit: AnswerSizeLimit = .standard) {
        loop = CurlMultiLoop(maxConnectionsPerHost: max(1, maxConnectionsPerHost))
        self.answerLimit = answerLimit
    }

    deinit { loop?.shutdown() }

    /// The loop thread's name (`/proc/self/task/*/comm`), unique per transport.
    public var threadName: String? { loop?.threadName }

    public var statistics: Statistics {
        let counts = loop?.counts ?? (transfers: 0, easyHandles: 0)
        return Statistics(transfers: counts.transfers, easyHandles: counts.easyHandles)
    }

    public func post(_ url: URL, body: Data, headers: [String: String], timeout: Duration) -> HTTPExchangeResult {
        post(url, body: body, headers: headers, timeout: timeout, start: .now, waitedForToken: false)
    }

    /// The loop starts the request when `wait` has passed, so the lane sleeps once (for the answer)
    /// instead of twice.
    public func post(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration, startingIn wait: Duration,
        clock: any ThrottleClock
    ) -> HTTPExchangeResult {
        post(
            url, body: body, headers: headers, timeout: timeout, start: Self.start(after: wait, on: clock),
            waitedForToken: wait > .zero)
    }

    /// The loop starts the request when `wait` has passed and calls `completion` from its thread. No
    /// backstop here: nobody blocks on the answer, and libcurl enforces the timeout itself.
    public func send(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration, startingIn wait: Duration,
        clock: any ThrottleClock, completion: @escaping @Sendable (HTTPExchangeResult) -> Void
    ) {
        send(
            .post, url, body: body, headers: headers, timeout: timeout, startingIn: wait, clock: clock,
            completion: completion)
    }

    /// `send` with a method (the Server API's GETs), from the loop's thread like a POST.
    public func send(
        _ method: HTTPMethod, _ url: URL, body: Data, headers: [String: String], timeout: Duration,
        startingIn wait: Duration, clock: any ThrottleClock,
        completion: @escaping @Sendable (HTTPExchangeResult) -> Void
    ) {
        guard let loop else {
            return completion(.failed(.connectionFailed(detail: "libcurl could not be initialised")))
        }
        loop.submit(
            CurlRequest(
                method: method, url: url, body: body, headers: headers, timeout: timeout,
                start: Self.start(after: wait, on: clock), waitedForToken: wait > .zero, answerLimit: answerLimit,
                completion: CurlCompletion(handler: completion)))
    }

    /// Requests the loop holds until their token is due fail at once, unsent, and so do later ones told
    /// to wait; requests already sent go on.
    public func abandonWaitingRequests() {
        loop?.abandonWaitingRequests()
    }

    /// When the loop may start a request told to wait `wait` on `clock`. Only on the real clock: a
    /// test's fake clock is not the loop's, so it is slept on here and the request starts at once.
    private static func start(after wait: Duration, on clock: any ThrottleClock) -> ContinuousClock.Instant {
        guard clock is SystemThrottleClock else {
            if wait > .zero { clock.sleep(for: wait) }
            return .now
        }
        return .now + max(.zero, wait)
    }

    private func post(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration,
        start: ContinuousClock.Instant, waitedForToken: Bool
    ) -> HTTPExchangeResult {
        guard let loop else { return .failed(.connectionFailed(detail: "libcurl could not be initialised")) }
        let completion = CurlCompletion()
        let request = CurlRequest(
            url: url, body: body, headers: headers, timeout: timeout, start: start,
            waitedForToken: waitedForToken, answerLimit: answerLimit, completion: completion)
        loop.submit(request)
        let startsIn = start - .now
        let delay = max(0, startsIn.components.seconds * 1000 + startsIn.components.attoseconds / 1_000_000_000_000_000)
        let backstop = DispatchTime.now() + .milliseconds(Int(delay) + request.timeoutMilliseconds + 1000)
        if let result = completion.wait(until: backstop) { return result }
        loop.cancel(completion)
        completion.finish(.failed(.timedOut))
        return completion.wait(until: .now()) ?? .failed(.timedOut)
    }
}
