import Foundation

/// How `run` ended, in the Prometheus text exposition format (version 0.0.4), for node_exporter's
/// textfile collector (`run --metrics-file`) or a Pushgateway.
///
/// Every sample carries `shard`, and all but `last_success_timestamp_seconds` carry `dry_run`
/// (`true`/`false`), so several shards, and a dry run beside the nightly run, can share a collector
/// directory or even one file: a run replaces only its own series (its shard, its kind) and keeps the
/// others' as the file held them. `last_success_timestamp_seconds` is when the last run that was not a
/// dry run completed (exit 0 or 1); every other end carries it forward, so an alert on its age keeps
/// something to fire on through failed nights.
public enum PrometheusMetrics {
    /// What the metrics say about one end of `run`.
    public struct RunEnd: Sendable {
        public var shard: String
        public var dryRun: Bool
        /// The run's status (`RunStatus`), `failed` when the run never started, `skipped` when another run
        /// held the shard's lock.
        public var status: String
        public var exitCode: ExitCode
        public var startedAt: Date
        public var finishedAt: Date
        /// `ReceiptRecon.version`.
        public var version: String
        /// The backend the configuration resolved to, `unknown` when it did not resolve.
        public var backend: String
        /// The run's figures; nil when no run row existed.
        public var summary: RunSummary?
        /// The shard's streaks, this night included, as the database holds them; nil when it could not be
        /// asked (a run that is not a dry run then carries the file's forward).
        public var streaks: NightStreaks?

        /// A run that had a row: its summary's status and figures. `finishedAt` stands in for the end the
        /// summary lacks (a run an error ended).
        public init(
            summary: RunSummary, exitCode: ExitCode, version: String, backend: String, finishedAt: Date = Date()
        ) {
            self.init(
                shard: summary.shard, dryRun: summary.dryRun, status: summary.status.rawValue, exitCode: exitCode,
                startedAt: summary.startedAt, finishedAt: summary.finishedAt ?? finishedAt, version: version,
                backend: backend)
            self.summary = summary
        }

        /// A run that never had a row: the database was unreachable, the configuration wrong, the lock held.
        public init(
            shard: String, dryRun: Bool, status: String, exitCode: ExitCode, startedAt: Date, finishedAt: Date,
            version: String, backend: String
        ) {
            self.shard = shard
            self.dryRun = dryRun
            self.status = status
            self.exitCode = exitCode
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.version = version
            self.backend = backend
        }

        /// A night that counts as done: not a dry run, and exit 0 or 1.
        public var isSuccess: Bool { !dryRun && (exitCode == .success || exitCode == .someUnverified) }
    }

    /// The values `last_run_status` can name, one sample each (1 for the run's own).
    public static let statuses =
        RunStatus.allCases.map(\.rawValue).filter { $0 != RunStatus.running.rawValue } + [
            "skipped"
        ]

    /// When the last night that counted ended, for the file `end` writes: `end` itself when it counts,
    /// else what `previous` (the file as it was) says for the same shard; nil when neither knows, and
    /// always for a dry run, which writes no last success of its own (`render` keeps the file's).
    public static func lastSuccess(of end: RunEnd, previous: String?) -> Date? {
        if end.dryRun { return nil }
        if end.isSuccess { return end.finishedAt }
        let value = PrometheusText.samples(in: previous ?? "").last {
            $0.name == prefix + lastSuccessName && $0.label("shard") == end.shard
        }?.value
        return value.flatMap(Double.init).flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil }
    }

    /// The file for `end`: its own series, `lastSuccess` for its shard, and the series of `previous` (the
    /// file as it was) that belong to other shards or to the other kind of run.
    ///
    /// A dry run keeps every last success the file held and adds none: pointed at the nightly run's file it
    /// leaves that run's as it was, and a file of its own holds none to clash with the nightly file's in
    /// a collector directory.
    public static func render(_ end: RunEnd, lastSuccess: Date?, previous: String? = nil) -> String {
        var samples = ownSamples(end)
        if let lastSuccess, !end.dryRun {
            samples.append(
                PrometheusText.Sample(
                    name: prefix + lastSuccessName, labels: [("shard", end.shard)], value: seconds(lastSuccess)))
        }
        let dryRun = end.dryRun ? "true" : "false"
        for sample in PrometheusText.samples(in: previous ?? "") {
            guard let family = family(of: sample.name) else { continue }
            guard let shard = sample.label("shard") else { continue }
            if family.name == lastSuccessName {
                if shard != end.shard || end.dryRun { samples.append(sample) }
            } else if let kind = sample.label("dry_run"), ["true", "false"].contains(kind),
                shard != end.shard || kind != dryRun || (family.name == streaksName && end.streaks == nil)
            {
                samples.append(sample)
            }
        }
        var text = ""
        for family in families {
            let members = samples.enumerated().filter { $0.element.name == prefix + family.name }.sorted {
                let left = ($0.element.label("shard") ?? "", $0.element.label("dry_run") ?? "", $0.offset)
                let right = ($1.element.label("shard") ?? "", $1.element.label("dry_run") ?? "", $1.offset)
                return left < right
            }
            guard !members.isEmpty else { continue }
            text += "# HELP \(prefix)\(family.name) \(PrometheusText.escapeHelp(family.help))\n"
            text += "# TYPE \(prefix)\(family.name) gauge\n"
            for member in members { text += member.element.line + "\n" }
        }
        return text
    }

    static let prefix = "receipt_recon_"
    static let lastSuccessName = "last_success_timestamp_seconds"
    static let streaksName = "consecutive_nights"

    struct Family {
        let name: String
        let help: String
    }

    /// Every family a file can hold, in the order it is written. Samples of other names found in a
    /// previous file (an older version's) are not carried over.
    static let families: [Family] = [
        Family(
            name: "build_info", help: "The receipt-recon that wrote these series (version) and its backend; always 1."),
        Family(
            name: lastSuccessName,
            help:
                "When the last run that was not a dry run completed (exit 0 or 1) ended (Unix time); carried forward "
                + "through runs that did not."),
        Family(name: "last_run_start_timestamp_seconds", help: "When the last run started (Unix time)."),
        Family(name: "last_run_end_timestamp_seconds", help: "When the last run ended, however it ended (Unix time)."),
        Family(name: "last_run_duration_seconds", help: "How long the last run took."),
        Family(
            name: "last_run_exit_code",
            help:
                "The last run's exit code: 0 ok, 1 some transiently unverified, 69 Apple or the database unavailable "
                + "or a breaker tripped, 70 internal, "
                + "75 lock held or interrupted, 77 database permission, 78 configuration."),
        Family(
            name: "last_run_status",
            help:
                "1 for the last run's status (completed, partial, aborted, failed, interrupted; skipped: another run "
                + "held the lock), 0 for the others."),
        Family(name: "last_run_id", help: "recon_runs.id of the last run; absent when it never started."),
        Family(name: "last_run_receipts_selected", help: "Receipts the last run selected for re-verification."),
        Family(name: "last_run_users_processed", help: "Users the last run processed."),
        Family(name: "last_run_receipts", help: "Receipts the last run processed, by outcome."),
        Family(
            name: "last_run_unverified_receipts",
            help:
                "Receipts the last run left unverified, by kind: transient (asked again next night; exit 1) or "
                + "permanent (Apple's answer, flagged: a deleted account, an id Apple no longer finds)."),
        Family(
            name: "last_run_corrections",
            help: "Entitlement corrections of the last run (planned when it was a dry run), by action and reason."),
        Family(name: "last_run_flags", help: "Flags raised by the last run, by kind."),
        Family(name: "last_run_revoked_users", help: "Users who lost an entitlement in the last run."),
        Family(
            name: "last_run_apple_requests",
            help: "Requests the last run sent to Apple, retries and re-routes included."),
        Family(
            name: "last_run_apple_requests_by_endpoint",
            help: "Requests the last run sent to Apple, by endpoint (verify_receipt, transaction_history, ...)."),
        Family(
            name: "last_run_receipts_by_apple_status",
            help: "Receipts of the last run by the status of Apple's final answer (none: no answer decoded)."),
        Family(name: "last_run_apple_retries", help: "Requests of the last run that were retries."),
        Family(name: "last_run_apple_throttled", help: "Answers from Apple with HTTP status 429 in the last run."),
        Family(name: "last_run_apple_reroutes", help: "Requests the last run re-sent to the other environment."),
        Family(name: "last_run_apple_latency_p50_seconds", help: "Median latency of Apple's answers in the last run."),
        Family(
            name: "last_run_apple_latency_p95_seconds",
            help: "95th percentile latency of Apple's answers in the last run."),
        Family(
            name: "last_run_notifications",
            help:
                "Apple notifications the last run read from the notification history, by kind (read, stored, rejected: "
                + "failed verification, unmatched: no stored row holds the transaction, delivery_failed)."),
        Family(
            name: "last_run_notifications_incomplete",
            help: "1 when the last run left a span of Apple's notification history for the next run to read again."),
        Family(
            name: "last_run_users_by_reason",
            help: "Users the last run verified and wrote, by reason (notified, new, sweep, older_than)."),
        Family(
            name: "last_run_users_left_by_reason",
            help: "Users the last run's queue held that it left for the next night, by reason."),
        Family(
            name: "last_run_budget_spent",
            help: "1 when the last run stopped because the night's Apple request budget was spent."),
        Family(
            name: streaksName,
            help:
                "Nightly runs in a row, newest first, that had the condition (budget_spent, transiently_unverified, "
                + "notifications_incomplete, notifications_undelivered); runs that did not run to the end, and for "
                + "the notification conditions runs that read no history, are passed over."),
    ]

    static func family(of name: String) -> Family? {
        guard name.hasPrefix(prefix) else { return nil }
        let short = name.dropFirst(prefix.count)
        return families.first { $0.name == short }
    }

    /// The series `end` writes for its shard and kind, `last_success` aside.
    static func ownSamples(_ end: RunEnd) -> [PrometheusText.Sample] {
        let own = [("shard", end.shard), ("dry_run", end.dryRun ? "true" : "false")]
        var samples: [PrometheusText.Sample] = []
        func add(_ name: String, _ labels: [(String, String)], _ value: String) {
            samples.append(PrometheusText.Sample(name: prefix + name, labels: own + labels, value: value))
        }
        func add(_ name: String, _ value: String) { add(name, [], value) }
        add("build_info", [("version", end.version), ("backend", end.backend)], "1")
        add("last_run_start_timestamp_seconds", seconds(end.startedAt))
        add("last_run_end_timestamp_seconds", seconds(end.finishedAt))
        let duration = end.summary?.durationSeconds ?? max(0, end.finishedAt.timeIntervalSince(end.startedAt))
        add("last_run_duration_seconds", number(duration))
        add("last_run_exit_code", String(end.exitCode.rawValue))
        for status in statuses {
            add("last_run_status", [("status", status)], status == end.status ? "1" : "0")
        }
        if let streaks = end.streaks, !end.dryRun {
            for condition in NightStreaks.Condition.allCases {
                add(streaksName, [("condition", condition.rawValue)], String(streaks.nights[condition] ?? 0))
            }
        }
        guard let summary = end.summary else { return samples }

        add("last_run_id", String(summary.runID))
        add("last_run_receipts_selected", String(summary.receiptsSelected))
        add("last_run_users_processed", String(summary.usersProcessed))
        var outcomes = summary.outcomes
        for known in ReceiptOutcome.allCases where outcomes[known] == nil { outcomes[known] = 0 }
        for (outcome, count) in outcomes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            add("last_run_receipts", [("outcome", outcome.rawValue)], String(count))
        }
        add("last_run_unverified_receipts", [("kind", "transient")], String(summary.transientlyUnverified))
        add("last_run_unverified_receipts", [("kind", "permanent")], String(summary.permanentlyUnverified ?? 0))
        for (action, reasons) in summary.corrections.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for (reason, count) in reasons.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                add("last_run_corrections", [("action", action.rawValue), ("reason", reason.rawValue)], String(count))
            }
        }
        for (kind, count) in summary.flags.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            add("last_run_flags", [("kind", kind.rawValue)], String(count))
        }
        add("last_run_revoked_users", String(summary.revokedUsers))
        add("last_run_apple_requests", String(summary.appleRequests))
        for (endpoint, count) in (summary.appleRequestsByEndpoint ?? [:]).sorted(by: { $0.key < $1.key }) {
            add("last_run_apple_requests_by_endpoint", [("endpoint", endpoint)], String(count))
        }
        for (status, count) in summary.appleStatuses.sorted(by: { $0.key < $1.key }) {
            add("last_run_receipts_by_apple_status", [("status", status)], String(count))
        }
        add("last_run_apple_retries", String(summary.appleRetries))
        add("last_run_apple_throttled", String(summary.appleThrottled))
        add("last_run_apple_reroutes", String(summary.appleHops))
        if let p50 = summary.latencyP50Milliseconds { add("last_run_apple_latency_p50_seconds", number(p50 / 1000)) }
        if let p95 = summary.latencyP95Milliseconds { add("last_run_apple_latency_p95_seconds", number(p95 / 1000)) }
        if let figures = summary.notifications {
            let kinds = [
                ("read", figures.read), ("stored", figures.stored), ("rejected", figures.rejected),
                ("unmatched", figures.unmatched), ("delivery_failed", figures.deliveryFailed),
            ]
            for (kind, count) in kinds { add("last_run_notifications", [("kind", kind)], String(count)) }
            add("last_run_notifications_incomplete", figures.incomplete == nil ? "0" : "1")
        }
        for (reason, count) in (summary.usersByReason ?? [:]).sorted(by: { $0.key < $1.key }) {
            add("last_run_users_by_reason", [("reason", reason)], String(count))
        }
        for (reason, count) in (summary.usersLeftByReason ?? [:]).sorted(by: { $0.key < $1.key }) {
            add("last_run_users_left_by_reason", [("reason", reason)], String(count))
        }
        if let ended = budgetEndedTheRun(summary) { add("last_run_budget_spent", ended ? "1" : "0") }
        return samples
    }

    /// Whether the night's request budget ended `summary`'s run; nil when the run kept no budget.
    static func budgetEndedTheRun(_ summary: RunSummary) -> Bool? {
        guard let budget = summary.budget else { return nil }
        // A breaker, failure or signal that came while a spent budget drained ended the run, not the budget.
        return budget.spentEndpoint != nil && summary.status == .completed
    }

    static func seconds(_ date: Date) -> String { number(date.timeIntervalSince1970) }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.6f", value)
    }
}
