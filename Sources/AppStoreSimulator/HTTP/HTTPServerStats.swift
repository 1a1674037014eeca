import Synchronization

/// A snapshot of what an `HTTPServer` has done since it started.
///
/// Counters are read one by one without a global lock, so a snapshot taken under load may be off by the
/// requests that finished while it was read; each counter on its own is exact. A response is counted
/// (with its bytes) just before it is written, so a client that has read a response finds it counted.
/// `Codable`, so the simulator's `GET /stats` can embed it (status keys encode as strings, e.g. `"200"`).
public struct HTTPServerStats: Sendable, Equatable, Codable {
    public var connectionsAccepted = 0
    public var connectionsOpen = 0
    /// Requests that reached the handler (malformed, oversized and timed-out requests do not).
    public var requestsReceived = 0
    /// Responses written, the server's own error responses included (not `100 Continue`).
    public var responsesSent = 0
    /// Requests from the handler call until their response is written or their fault injected, delays included.
    public var requestsInFlight = 0
    /// The highest `requestsInFlight` seen.
    public var peakRequestsInFlight = 0
    /// Responses written, by status code.
    public var responsesByStatus: [Int: Int] = [:]
    public var bytesReceived = 0
    public var bytesSent = 0
    /// `HTTPResponse.Action.resetConnection` faults carried out.
    public var connectionsReset = 0
    /// `HTTPResponse.Action.closeWithoutResponse` faults carried out.
    public var connectionsClosedWithoutResponse = 0
    /// Requests that did not arrive in full within the request timeout (answered 408).
    public var requestTimeouts = 0

    public init() {}
}

/// The live counters behind `HTTPServerStats`.
///
/// Threading: updated concurrently by every connection thread; atomics for the scalars and a `Mutex`
/// (held for one dictionary update) for the per-status counts.
final class HTTPServerCounters: Sendable {
    let connectionsAccepted = Atomic<Int>(0)
    let connectionsOpen = Atomic<Int>(0)
    let requestsReceived = Atomic<Int>(0)
    let responsesSent = Atomic<Int>(0)
    let requestsInFlight = Atomic<Int>(0)
    let peakRequestsInFlight = Atomic<Int>(0)
    let bytesReceived = Atomic<Int>(0)
    let bytesSent = Atomic<Int>(0)
    let connectionsReset = Atomic<Int>(0)
    let connectionsClosedWithoutResponse = Atomic<Int>(0)
    let requestTimeouts = Atomic<Int>(0)
    private let byStatus = Mutex<[Int: Int]>([:])

    func requestStarted() {
        requestsReceived.add(1, ordering: .relaxed)
        let now = requestsInFlight.add(1, ordering: .relaxed).newValue
        var peak = peakRequestsInFlight.load(ordering: .relaxed)
        while now > peak {
            let (exchanged, original) = peakRequestsInFlight.compareExchange(
                expected: peak, desired: now, ordering: .relaxed
            )
            if exchanged { break }
            peak = original
        }
    }

    func requestFinished() {
        requestsInFlight.subtract(1, ordering: .relaxed)
    }

    func responseSent(status: Int) {
        responsesSent.add(1, ordering: .relaxed)
        byStatus.withLock { $0[status, default: 0] += 1 }
    }

    func snapshot() -> HTTPServerStats {
        var stats = HTTPServerStats()
        stats.connectionsAccepted = connectionsAccepted.load(ordering: .relaxed)
        stats.connectionsOpen = connectionsOpen.load(ordering: .relaxed)
        stats.requestsReceived = requestsReceived.load(ordering: .relaxed)
        stats.responsesSent = responsesSent.load(ordering: .relaxed)
        stats.requestsInFlight = requestsInFlight.load(ordering: .relaxed)
        stats.peakRequestsInFlight = peakRequestsInFlight.load(ordering: .relaxed)
        stats.responsesByStatus = byStatus.withLock { $0 }
        stats.bytesReceived = bytesReceived.load(ordering: .relaxed)
        stats.bytesSent = bytesSent.load(ordering: .relaxed)
        stats.connectionsReset = connectionsReset.load(ordering: .relaxed)
        stats.connectionsClosedWithoutResponse = connectionsClosedWithoutResponse.load(ordering: .relaxed)
        stats.requestTimeouts = requestTimeouts.load(ordering: .relaxed)
        return stats
    }
}
