/// What the simulator has done since it started: the body of `GET /stats`.
///
/// Dictionary keys are strings (`"production"`, `"21007"`, `"http_503"`) and the JSON is written with
/// sorted keys, so two snapshots of the same traffic are identical text.
public struct SimulatorStats: Sendable, Equatable, Codable {
    public struct Latency: Sendable, Equatable, Codable {
        /// Responses that were delayed on purpose (latency, jitter, stalls excluded).
        public var delayedResponses = 0
        public var totalMilliseconds: Double = 0
        public var maxMilliseconds: Double = 0
    }

    /// verifyReceipt requests (both endpoints, faults and 429s included).
    public var requests = 0
    /// verifyReceipt requests by endpoint: `production`, `sandbox`.
    public var requestsByEndpoint: [String: Int] = [:]
    /// Answers by the `status` in their JSON (only requests that got a verifyReceipt body; faults included).
    public var answersByStatus: [String: Int] = [:]
    /// verifyReceipt responses by HTTP status (resets and stalls have none).
    public var responsesByHTTPStatus: [String: Int] = [:]
    /// 429 answers of the rate limit.
    public var rateLimited = 0
    /// Injected faults by `FaultKind` raw value.
    public var faultsByKind: [String: Int] = [:]
    public var latency = Latency()
    /// verifyReceipt requests that arrived in each second since the simulator started (index 0 = first
    /// second).
    public var requestsPerSecond: [Int] = []
    /// The most verifyReceipt requests that arrived within any one-second window (sliding, not aligned
    /// to whole seconds), over the request log.
    public var maxRequestsInOneSecond = 0
    /// Whether the request log hit its capacity (the sliding maximum then covers only the logged part).
    public var requestLogTruncated = false
    /// The HTTP server's own counters (connections, bytes, resets).
    public var server = HTTPServerStats()

    public init() {}
}
