import AppStoreReceipts
import Foundation

/// `receipt-recon-bench --json-keys`: the parser's CPU time on 256 KiB JSON objects whose keys
/// collide on their length and ends (`JSONKeyPatterns.Pattern.colliding`) against keys drawn at
/// random, in this process. The parser reads signed data before its signature is checked, so the
/// two must cost about the same; `json_colliding_ratio` says how close (target: at most 3).
enum JSONKeysBench {
    static let bytes = 256 * 1024
    /// Timed rounds per figure; the least is reported, as other load on the machine only adds.
    static let rounds = 5
    static let parsesPerRound = 20

    static func run() -> BenchReport {
        var report = BenchReport()
        var figures: [JSONKeyPatterns.Pattern: Double] = [:]
        for pattern in JSONKeyPatterns.Pattern.allCases {
            let json = JSONKeyPatterns.object(pattern, bytes: bytes)
            guard JSONKeyPatterns.parses(json) else {
                report.miss("json_\(pattern.rawValue)_keys_ms", "the \(pattern.rawValue)-key object did not parse")
                continue
            }
            var best = Double.infinity
            for _ in 0..<rounds {
                let started = cpuSeconds()
                for _ in 0..<parsesPerRound { _ = JSONKeyPatterns.parses(json) }
                best = min(best, (cpuSeconds() - started) / Double(parsesPerRound))
            }
            figures[pattern] = best * 1000
        }
        report.add("json_bytes", "\(bytes)")
        for pattern in [JSONKeyPatterns.Pattern.random, .colliding] {
            if let milliseconds = figures[pattern] {
                report.add("json_\(pattern.rawValue)_keys_ms", BenchReport.fixed(milliseconds, 3))
            }
        }
        if let random = figures[.random], let colliding = figures[.colliding], random > 0 {
            report.add("json_colliding_ratio", BenchReport.fixed(colliding / random, 2))
        }
        return report
    }

    /// Process CPU seconds, so other load on the machine does not count.
    static func cpuSeconds() -> Double {
        Double(clock()) / Double(CLOCKS_PER_SEC)
    }
}
