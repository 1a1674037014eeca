/// Request latencies in 1 ms buckets up to a minute: constant memory for any number of requests,
/// exact enough for p50/p95 in a report.
struct LatencyHistogram: Sendable {
    private var buckets = [Int](repeating: 0, count: 60_001)
    private(set) var count = 0

    mutating func record(_ duration: Duration) {
        let milliseconds =
            Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
        buckets[min(max(milliseconds, 0), buckets.count - 1)] += 1
        count += 1
    }

    /// The smallest bucket below which `fraction` of the requests fall, in milliseconds.
    func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let target = Int((Double(count) * fraction).rounded(.up))
        var seen = 0
        for (milliseconds, bucketCount) in buckets.enumerated() {
            seen += bucketCount
            if seen >= target { return Double(milliseconds) }
        }
        return Double(buckets.count - 1)
    }
}
