import Foundation

/// What a record masks, and nothing else: the parts of an output that differ from one run of the same
/// command line to the next whatever the code does. Everything else (fixed `--as-of`, seed, database
/// names, environment) is made deterministic instead. The list, in the order applied:
///
/// 1. The section's temporary directory → `$TMP`; the test cluster's socket directory → `$PGHOST`; the
///    conformance corpus → `$CONFORMANCE`.
/// 2. A loopback port (`127.0.0.1:N`, the simulator's; the demo picks its own) → `127.0.0.1:$PORT`.
/// 3. An ISO 8601 instant within the suite's own run (a run's start and end, a row's `created_at`, a
///    log line's `time=`, an export's `generated_at`) → `$NOW`. The worlds are dated by `--as-of`, so no
///    other instant can fall in that window.
/// 4. Durations: the values of the JSON keys `durationSeconds`, `databaseSeconds`,
///    `latencyP50Milliseconds` and `latencyP95Milliseconds`, every value of the `phaseSeconds` object
///    (its keys stay: which phases a run had is not a matter of timing), and the text's `in N s` and
///    `p50 N ms, p95 N ms` → `$DURATION`.
///
/// Two more apply only to the command line the script marks: `@unordered` (a nightly run's corrections
/// or flags CSV: rows sorted, row id → `$ID`) and `@keep-lines` (the demo).
struct GoldenNormalisation {
    /// When the first section started: instants from here on are the suite's own.
    static let suiteStarted = Date()

    let temporary: String
    let clusterDirectory: String
    let conformance: String?

    func apply(_ text: String) -> String {
        var text = text.replacingOccurrences(of: temporary, with: "$TMP")
            .replacingOccurrences(of: clusterDirectory, with: "$PGHOST")
        if let conformance { text = text.replacingOccurrences(of: conformance, with: "$CONFORMANCE") }
        text = text.replacing(/127\.0\.0\.1:\d+/, with: "127.0.0.1:$PORT")
        text = Self.maskingWallClock(text)
        text = text.replacing(
            /"(durationSeconds|databaseSeconds|latencyP50Milliseconds|latencyP95Milliseconds)":[0-9.eE+-]+/
        ) { "\"\($0.1)\":$DURATION" }
        text = text.replacing(/"phaseSeconds":\{[^}]*\}/) { match in
            String(match.0).replacing(/":[0-9.eE+-]+/, with: "\":$DURATION")
        }
        text = text.replacing(/\ in \d+(\.\d+)? s\b/, with: " in $DURATION s")
        text = text.replacing(/p50 \d+ ms, p95 \d+ ms/, with: "p50 $DURATION ms, p95 $DURATION ms")
        return text
    }

    /// ISO 8601 instants between the suite's start (less a minute) and now (plus a minute) → `$NOW`.
    static func maskingWallClock(_ text: String) -> String {
        let window = suiteStarted.addingTimeInterval(-60)...Date().addingTimeInterval(60)
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return text.replacing(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/) { match in
            let instant = String(match.0)
            guard let date = plain.date(from: instant) ?? fractional.date(from: instant), window.contains(date)
            else { return instant }
            return "$NOW"
        }
    }

    /// `@unordered`: the header stays first; the rows, their first column made `$ID`, sorted.
    static func unordered(_ csv: String) -> String {
        var lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let last = lines.last == "" ? lines.removeLast() : nil
        guard !lines.isEmpty else { return csv }
        let header = lines.removeFirst()
        let rows = lines.map { line in
            line.firstIndex(of: ",").map { "$ID" + line[$0...] } ?? line
        }.sorted()
        return ([header] + rows + (last.map { [$0] } ?? [])).joined(separator: "\n")
    }

    /// `@keep-lines REGEX`: only the lines REGEX matches, each with its newline.
    static func keepingLines(_ text: String, matching pattern: String) throws -> String {
        let regex = try Regex(pattern)
        return text.split(separator: "\n").filter { $0.contains(regex) }.map { $0 + "\n" }.joined()
    }
}
