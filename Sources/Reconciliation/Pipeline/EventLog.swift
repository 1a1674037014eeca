import CivilTime
import Foundation

/// The job's log: one event per line on stderr, `key=value` pairs after a timestamp and a level, so
/// that journald, a log shipper or grep can read it. Values are quoted when they contain spaces.
///
/// Never pass receipt data, a shared secret or a conninfo to it: callers log ids, counts and reasons.
public struct EventLog: Sendable {
    public enum Level: String, Sendable { case info, warning, error }

    private let enabled: Bool
    /// On a terminal, each event first clears the line: the run's progress line (redrawn every second,
    /// without a line end) would otherwise run into it.
    private let clearsLine = isatty(STDERR_FILENO) == 1

    public init(enabled: Bool = true) { self.enabled = enabled }

    public func log(_ level: Level = .info, _ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(level, event, fields: fields.map { ($0.key, $0.value) })
    }

    /// The same, with fields built at run time (`RunProgress.logFields`).
    public func log(_ level: Level = .info, _ event: String, fields: [(String, String)]) {
        guard enabled else { return }
        var line =
            (clearsLine ? "\r\u{1B}[K" : "")
            + "time=\(Instant.formatSeconds(Date())) level=\(level.rawValue) event=\(event)"
        for (key, value) in fields {
            let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" }
            let cleaned = value.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\"", with: "'")
            line += " \(key)=" + (needsQuotes ? "\"\(cleaned)\"" : cleaned)
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
