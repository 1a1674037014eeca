import Dispatch
import Foundation

/// `HTTPTransport` over libcurl's multi interface: one thread drives every request of the process, and
/// connections are kept alive between requests.
///
/// Why not URLSession: on Linux it costs about ten times the CPU per request of a loop over curl's
/// multi interface, more than the job's whole CPU budget per receipt.
///
/// Shape: `send` hands a `CurlRequest` (with the instant its throttle token is due) to the loop thread
/// (`CurlMultiLoop`) under a mutex and wakes it through an eventfd if it would sleep past that instant,
/// then returns; the loop calls the completion handler when the answer is in. The loop adds an easy
/// handle (pooled, so none is created per request) to the multi handle, which keeps the connections,
/// and drives it with `curl_multi_socket_action` over epoll. libcurl enforces the per-request timeout
/// to the millisecond.
///
/// HTTPS verifies the peer with the system's CA store (Debian: `ca-certificates`), as libcurl does by
/// default; nothing here turns verification off.
///
/// Threading: `send` is called from any thread; handlers run on the loop thread. Releasing the
/// transport stops its thread and frees every handle.
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
    ///   - timeout: unused beyond symmetry with `URLSessionTransport`: each request carries its own.
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

    /// The loop starts the request when `notBefore` has come, so nobody sleeps for the token: the loop
    /// was going to wake for sockets anyway.
    public func send(
        _ request: HTTPClientRequest, notBefore: Duration, on clock: any ThrottleClock,
        completion: @escaping HTTPCompletion
    ) {
        guard let loop else {
            return completion(.failed(.connectionFailed(detail: "libcurl could not be initialised")))
        }
        let wait = notBefore - clock.now()
        loop.submit(
            CurlRequest(
                request, start: .now + max(.zero, wait), waitedForToken: wait > .zero, answerLimit: answerLimit,
                completion: CurlCompletion(handler: completion)))
    }

    /// Requests the loop holds until their token is due fail at once, unsent, and so do later ones told
    /// to wait; requests already sent go on.
    public func cancelWaiting() {
        loop?.abandonWaitingRequests()
    }
}
