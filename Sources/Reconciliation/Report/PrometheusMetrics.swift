import Foundation

/// A run's figures in the Prometheus text exposition format (version 0.0.4), for node_exporter's
/// textfile collector (`run --metrics-file`). Every sample carries a `shard` label so that several
/// shards' files can sit side by side in one collector directory.
public enum PrometheusMetrics {
    /// - Parameters:
    ///   - exitCode: the run's exit code (CONTRACT §3).
    ///   - finishedAt: the run's end when the summary has none (an interrupted run).
    public static func render(_ summary: RunSummary, exitCode: ExitCode, finishedAt: Date = Date()) -> String {
        var out = Output(shard: summary.shard)
        let end = summary.finishedAt ?? finishedAt

        out.family("last_run_start_timestamp_seconds", "When the last run started (Unix time).")
        out.sample("last_run_start_timestamp_seconds", [], seconds(summary.startedAt))
        out.family("last_run_end_timestamp_seconds", "When the last run ended (Unix time).")
        out.sample("last_run_end_timestamp_seconds", [], seconds(end))
        if exitCode == .success || exitCode == .someUnverified {
            out.family(
                "last_success_timestamp_seconds",
                "When the last run that completed (exit 0 or 1) ended (Unix time); absent when the last run failed.")
            out.sample("last_success_timestamp_seconds", [], seconds(end))
        }
        out.family("last_run_duration_seconds", "How long the last run took.")
        out.sample("last_run_duration_seconds", [], number(summary.durationSeconds))
        out.family(
            "last_run_exit_code",
            "The last run's exit code: 0 ok, 1 some unverified, 69 unavailable or breaker tripped, 70 internal, 78 configuration."
        )
        out.sample("last_run_exit_code", [], String(exitCode.rawValue))
        out.family("last_run_id", "recon_runs.id of the last run.")
        out.sample("last_run_id", [], String(summary.runID))
        out.family("last_run_dry_run", "1 when the last run was a dry run (no entitlement changed).")
        out.sample("last_run_dry_run", [], summary.dryRun ? "1" : "0")
        out.family("last_run_receipts_selected", "Receipts the last run selected for re-verification.")
        out.sample("last_run_receipts_selected", [], String(summary.receiptsSelected))
        out.family("last_run_users_processed", "Users the last run processed.")
        out.sample("last_run_users_processed", [], String(summary.usersProcessed))

        out.family("last_run_receipts", "Receipts the last run processed, by outcome.")
        var outcomes = summary.outcomes
        for known in ReceiptOutcome.allCases where outcomes[known] == nil { outcomes[known] = 0 }
        for (outcome, count) in outcomes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            out.sample("last_run_receipts", [("outcome", outcome.rawValue)], String(count))
        }
        out.family(
            "last_run_corrections",
            "Entitlement corrections of the last run (planned when it was a dry run), by action and reason.")
        for (action, reasons) in summary.corrections.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for (reason, count) in reasons.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                out.sample(
                    "last_run_corrections", [("action", action.rawValue), ("reason", reason.rawValue)], String(count))
            }
        }
        out.family("last_run_flags", "Flags raised by the last run, by kind.")
        for (kind, count) in summary.flags.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            out.sample("last_run_flags", [("kind", kind.rawValue)], String(count))
        }
        out.family("last_run_revoked_users", "Users who lost an entitlement in the last run.")
        out.sample("last_run_revoked_users", [], String(summary.revokedUsers))

        out.family("last_run_apple_requests", "verifyReceipt requests of the last run, retries and re-routes included.")
        out.sample("last_run_apple_requests", [], String(summary.appleRequests))
        out.family(
            "last_run_apple_requests_by_status",
            "Receipts of the last run by Apple's final status (none: no answer decoded).")
        for (status, count) in summary.appleStatuses.sorted(by: { $0.key < $1.key }) {
            out.sample("last_run_apple_requests_by_status", [("status", status)], String(count))
        }
        out.family("last_run_apple_retries", "verifyReceipt retries of the last run.")
        out.sample("last_run_apple_retries", [], String(summary.appleRetries))
        out.family("last_run_apple_throttled", "HTTP 429 answers from Apple in the last run.")
        out.sample("last_run_apple_throttled", [], String(summary.appleThrottled))
        out.family("last_run_apple_reroutes", "Production-to-sandbox re-routes (21007) in the last run.")
        out.sample("last_run_apple_reroutes", [], String(summary.appleHops))
        if let p50 = summary.latencyP50Milliseconds, let p95 = summary.latencyP95Milliseconds {
            out.family("last_run_apple_latency_seconds", "verifyReceipt latency percentiles of the last run.")
            out.sample("last_run_apple_latency_seconds", [("quantile", "0.5")], number(p50 / 1000))
            out.sample("last_run_apple_latency_seconds", [("quantile", "0.95")], number(p95 / 1000))
        }
        return out.text
    }

    /// A label value as the exposition format wants it: `\`, `"` and line feeds escaped.
    public static func escapeLabel(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n", "\r\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    static func seconds(_ date: Date) -> String { number(date.timeIntervalSince1970) }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.6f", value)
    }

    private struct Output {
        let shard: String
        var text = ""

        mutating func family(_ name: String, _ help: String) {
            let escaped = help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            text += "# HELP receipt_recon_\(name) \(escaped)\n# TYPE receipt_recon_\(name) gauge\n"
        }

        mutating func sample(_ name: String, _ labels: [(String, String)], _ value: String) {
            let all = [("shard", shard)] + labels
            let rendered = all.map { "\($0.0)=\"\(PrometheusMetrics.escapeLabel($0.1))\"" }.joined(separator: ",")
            text += "receipt_recon_\(name){\(rendered)} \(value)\n"
        }
    }
}
