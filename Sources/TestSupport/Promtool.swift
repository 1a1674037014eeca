import ChildProcess
import Foundation

/// Prometheus's own checker (`promtool`, Debian `prometheus`): the metrics file, the alert rules in
/// docs/operations.md and their unit tests, as Prometheus will read them.
public enum Promtool {
    public static let path = "/usr/bin/promtool"

    public struct Result: Sendable {
        public let status: Int32
        /// stdout and stderr together: promtool reports lint problems on either.
        public let output: String
    }

    /// `promtool check metrics` over `text` on stdin: exit 0 and nothing printed when it is clean.
    public static func checkMetrics(_ text: String) throws -> Result {
        try run(["check", "metrics"], stdin: Data(text.utf8))
    }

    /// `promtool check rules FILE…`.
    public static func checkRules(_ files: [String]) throws -> Result {
        try run(["check", "rules"] + files, stdin: nil)
    }

    /// `promtool test rules FILE…`.
    public static func testRules(_ files: [String]) throws -> Result {
        try run(["test", "rules"] + files, stdin: nil)
    }

    static func run(_ arguments: [String], stdin: Data?) throws -> Result {
        let result = try ChildProcess.run(path, arguments, stdin: stdin, timeout: 120)
        return Result(status: result.status, output: result.stdoutText + result.stderrText)
    }
}

/// The Prometheus text format read by a real client parser (`prometheus_client`, Debian
/// python3-prometheus-client): what a scrape would see.
public enum PrometheusClientParser {
    public struct Sample: Decodable, Hashable, Sendable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct Family: Decodable, Sendable {
        public var name: String
        public var type: String
        public var documentation: String
        public var samples: [Sample]
    }

    public struct Rejected: Error, CustomStringConvertible {
        public let description: String
    }

    static let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        out = []
        for f in text_string_to_metric_families(sys.stdin.read()):
            out.append({"name": f.name, "type": f.type, "documentation": f.documentation,
                        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]})
        print(json.dumps(out))
        """

    public static func parse(_ text: String) throws -> [Family] {
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", script], stdin: Data(text.utf8), timeout: 60)
        guard result.status == 0 else {
            throw Rejected(description: "prometheus_client rejected the metrics:\n\(result.stderrText)\n\(text)")
        }
        return try JSONDecoder().decode([Family].self, from: result.stdout)
    }

    /// The value of the sample `name` with exactly `labels`, nil when there is none.
    public static func value(_ families: [Family], _ name: String, _ labels: [String: String]) -> Double? {
        families.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
    }
}
