import Synchronization

/// Counts what the simulator does, for `SimulatorStats` and the request log.
///
/// Threading: `Sendable`; called from every connection thread. The arrival counter is an `Atomic`
/// (it numbers requests for `FaultInjector`); the rest sits behind one `Mutex`, taken once per request.
final class SimulatorRecorder: Sendable {
    private struct State {
        var stats = SimulatorStats()
        /// Arrival offsets from `start`, in microseconds, up to the log's capacity.
        var log: [Int64] = []
    }

    let start: ContinuousClock.Instant
    private let logCapacity: Int
    private let arrivals = Atomic<Int>(0)
    private let state = Mutex(State())

    init(logCapacity: Int) {
        start = .now
        self.logCapacity = logCapacity
    }

    /// Numbers a verifyReceipt request on arrival (0, 1, 2, …) for `FaultInjector`; lock-free.
    func arrival() -> (number: Int, at: ContinuousClock.Instant) {
        (arrivals.add(1, ordering: .relaxed).oldValue, .now)
    }

    /// Records one verifyReceipt request and how it was answered, under one lock acquisition (with 64
    /// connection threads on 2 cores, a second acquisition per request showed up as lock contention).
    func record(
        endpoint: String,
        arrivedAt: ContinuousClock.Instant,
        appleStatus: Int?,
        httpStatus: Int?,
        fault: FaultKind?,
        rateLimited: Bool,
        delay: Duration?
    ) {
        let offset = arrivedAt - start
        let microseconds = offset.components.seconds * 1_000_000 + offset.components.attoseconds / 1_000_000_000_000
        let second = Int(offset.components.seconds)
        var milliseconds = 0.0
        if let delay, delay > .zero {
            milliseconds = Double(delay.components.seconds) * 1000 + Double(delay.components.attoseconds) * 1e-15
        }
        state.withLock { state in
            state.stats.requests += 1
            state.stats.requestsByEndpoint[endpoint, default: 0] += 1
            if state.stats.requestsPerSecond.count <= second {
                state.stats.requestsPerSecond += Array(
                    repeating: 0, count: second + 1 - state.stats.requestsPerSecond.count)
            }
            state.stats.requestsPerSecond[second] += 1
            if state.log.count < logCapacity {
                state.log.append(microseconds)
            } else {
                state.stats.requestLogTruncated = true
            }
            if let appleStatus { state.stats.answersByStatus[String(appleStatus), default: 0] += 1 }
            if let httpStatus { state.stats.responsesByHTTPStatus[String(httpStatus), default: 0] += 1 }
            if let fault { state.stats.faultsByKind[fault.rawValue, default: 0] += 1 }
            if rateLimited { state.stats.rateLimited += 1 }
            if milliseconds > 0 {
                state.stats.latency.delayedResponses += 1
                state.stats.latency.totalMilliseconds += milliseconds
                state.stats.latency.maxMilliseconds = max(state.stats.latency.maxMilliseconds, milliseconds)
            }
        }
    }

    /// A snapshot, with the sliding one-second maximum computed over the log.
    func snapshot() -> SimulatorStats {
        let (stats, log) = state.withLock { ($0.stats, $0.log) }
        var result = stats
        result.maxRequestsInOneSecond = Self.maxInWindow(log, width: 1_000_000)
        return result
    }

    /// Arrival times since start, in arrival order.
    func requestLog() -> [Duration] {
        state.withLock { $0.log }.map { .microseconds($0) }
    }

    /// The largest number of entries of sorted `times` within any half-open window `[t, t + width)`.
    static func maxInWindow(_ times: [Int64], width: Int64) -> Int {
        let sorted = times.sorted()
        var best = 0
        var low = 0
        for high in sorted.indices {
            while sorted[high] - sorted[low] >= width { low += 1 }
            best = max(best, high - low + 1)
        }
        return best
    }
}
