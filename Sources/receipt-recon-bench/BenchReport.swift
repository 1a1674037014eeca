import ChildProcess
import Foundation

/// The bench's stdout: one `key=value` per line, the required keys first in a fixed order, then
/// extras. A value that could not be measured is left out (and named in `missing`), never made up.
struct BenchReport: Sendable {
    private(set) var lines: [(key: String, value: String)] = []
    /// Required keys without a value, with the reason.
    private(set) var missing: [(key: String, reason: String)] = []

    /// Everything one bench measured.
    struct Inputs: Sendable {
        var options: BenchOptions
        var job: ChildProcess.Result
        var jobWallSeconds: Double
        /// The job's own peak resident memory (`PeakMemoryWatch`: never the bench's).
        var jobPeakMemory: PeakMemoryWatch.Peak
        var summary: JobSummary?
        var simulator: SimulatorProcess.Stats?
        var simulatorUsage: ChildProcess.ResourceUsage?
        var simulatorPeakMemory: PeakMemoryWatch.Peak?
        var seededReceipts: Int?
        var seededUsers: Int?
        var seedSeconds: Double
        var expectedCorrections: Int?
        /// An incremental world's changed and missed users (its expected file).
        var expectedChanges: (changedUsers: Int, missedChanges: Int)? = nil
        var postgresActiveSeconds: Double?
        var postgresSettings: [String: String]
        var jobBinary: String
        var benchSeconds: Double
    }

    init(_ inputs: Inputs) {
        let processed = inputs.summary?.receiptsProcessed
        let perReceipt = processed.flatMap { $0 > 0 ? Double($0) : nil }
        let wall = inputs.jobWallSeconds
        let usage = inputs.job.resourceUsage
        let noSummary = "'run --json' printed no summary (exit \(inputs.job.status))"
        let noReceipts = inputs.summary == nil ? noSummary : "the job processed no receipts"

        let rateLimit = inputs.options.rateLimit
        let perSecond = perReceipt.map { $0 / wall }
        if let perReceipt, let perSecond {
            // Without a rate limit there is no R to divide by: ideal_ratio says how close the run came.
            if let rateLimit { add("throughput_ratio", Self.fixed(perSecond / rateLimit, 3)) }
            add("receipts_per_second", Self.fixed(perSecond, 1))
            add("cpu_ms_per_1k_receipts", Self.fixed(usage.cpuSeconds * 1000 / perReceipt * 1000, 1))
        } else {
            let keys =
                (rateLimit == nil ? [] : ["throughput_ratio"]) + ["receipts_per_second", "cpu_ms_per_1k_receipts"]
            for key in keys { miss(key, noReceipts) }
        }
        if inputs.jobPeakMemory.kilobytes > 0 {
            add("peak_rss_mb", Self.fixed(Double(inputs.jobPeakMemory.kilobytes) / 1024, 1))
        } else {
            miss(
                "peak_rss_mb",
                "the job's peak memory could not be read (no wait4 figure above the bench's own, no sample)")
        }
        if let perReceipt, let simulator = inputs.simulator {
            add("apple_requests_per_receipt", Self.fixed(Double(simulator.requests) / perReceipt, 3))
        } else {
            miss(
                "apple_requests_per_receipt",
                inputs.simulator == nil ? "the simulator's /stats could not be read" : noReceipts)
        }
        if let simulator = inputs.simulator {
            add("over_limit_429", String(simulator.rateLimited))
        } else {
            miss("over_limit_429", "the simulator's /stats could not be read")
        }
        if let seconds = inputs.summary?.databaseSeconds {
            add("db_seconds", Self.fixed(seconds, 2))
        } else {
            miss(
                "db_seconds",
                inputs.summary == nil
                    ? noSummary
                    : "'run --json' has no databaseSeconds: this receipt-recon does not measure its time waiting on PostgreSQL"
            )
        }
        add("wall_seconds", Self.fixed(wall, 2))

        // The bound the setup puts on throughput, and how close the run came to it. With the Server API the
        // mix of endpoints per receipt is read from the run (each endpoint has its own limit).
        let byEndpoint = (inputs.summary?.requestsByEndpoint ?? [:]).mapValues { Double($0) / (perReceipt ?? 1) }
        let ideal =
            inputs.options.isServerAPI
            ? (perReceipt == nil ? nil : inputs.options.idealReceiptsPerSecond(requestsPerReceipt: byEndpoint))
            : inputs.options.idealReceiptsPerSecond
        for (endpoint, perReceiptCount) in byEndpoint.sorted(by: { $0.key < $1.key }) where inputs.options.isServerAPI {
            add("apple_requests_per_receipt_\(endpoint)", Self.fixed(perReceiptCount, 3))
        }
        add("ideal_receipts_per_second", ideal.map { Self.fixed($0, 1) })
        if let ideal, let perSecond { add("ideal_ratio", Self.fixed(perSecond / ideal, 3)) }

        // An incremental night's figures: Apple's cost per user of the world, the history's
        // pages, and what the world changed.
        let options = inputs.options
        if options.isIncremental {
            if let simulator = inputs.simulator, let users = inputs.seededUsers, users > 0 {
                add("apple_requests_per_user", Self.fixed(Double(simulator.requests) / Double(users), 4))
            } else {
                miss("apple_requests_per_user", "the simulator's /stats or the seeded user count could not be read")
            }
            add(
                "notification_requests",
                inputs.simulator.map {
                    String(
                        $0.requestsByEndpoint.filter { $0.key.hasSuffix("notification_history") }.values.reduce(0, +))
                })
            add("changed_users", inputs.expectedChanges.map { String($0.changedUsers) })
            add("missed_changes", inputs.expectedChanges.map { String($0.missedChanges) })
            let byReason = inputs.summary?.requestsByReason ?? [:]
            if byReason.isEmpty {
                miss(
                    "requests_by_reason", "'run --json' has no requestsByReason: this receipt-recon does not count them"
                )
            } else {
                let order = ["notified", "new", "sweep", "older_than"]
                let reasons =
                    order.filter { byReason[$0] != nil } + byReason.keys.filter { !order.contains($0) }.sorted()
                add("requests_by_reason", reasons.map { "\($0):\(byReason[$0]!)" }.joined(separator: ","))
            }
            add("changed_fraction", options.changedFraction.map { "\($0)" })
            add("sweep_days", String(options.sweepDays))
        }

        // Extras: what the run was, and figures to read the required ones by.
        add("receipts", processed.map(String.init))
        add("receipts_selected", inputs.summary?.receiptsSelected.map(String.init))
        add("receipts_seeded", inputs.seededReceipts.map(String.init))
        add("users", inputs.summary?.usersProcessed.map(String.init))
        add("users_seeded", inputs.seededUsers.map(String.init))
        add("rate", options.rateText)
        add("job_rate", options.jobRateText)
        add("job_max_requests_per_hour", String(options.jobMaxRequestsPerHour))
        add("concurrency", String(options.concurrency))
        add("latency_ms", String(options.latencyMilliseconds))
        add("jitter_ms", String(options.jitterMilliseconds))
        add("seed", String(options.seed))
        add("http_client", options.httpClient)
        add("backend", options.backend)
        add("job_exit_code", String(inputs.job.status))
        add("job_status", inputs.summary?.status)
        add("job_cpu_seconds", Self.fixed(usage.cpuSeconds, 2))
        add("job_user_cpu_seconds", Self.fixed(usage.userSeconds, 2))
        add("job_system_cpu_seconds", Self.fixed(usage.systemSeconds, 2))
        add("peak_rss_source", inputs.jobPeakMemory.source)
        add("job_apple_requests", inputs.summary?.appleRequests.map(String.init))
        add("job_apple_retries", inputs.summary?.appleRetries.map(String.init))
        add("job_apple_throttled", inputs.summary?.appleThrottled.map(String.init))
        add("apple_requests", inputs.simulator.map { String($0.requests) })
        add("max_requests_in_one_second", inputs.simulator.map { String($0.maxRequestsInOneSecond) })
        add("corrections", inputs.summary?.corrections.map(String.init))
        add("expected_corrections", inputs.expectedCorrections.map(String.init))
        add("pg_active_seconds", inputs.postgresActiveSeconds.map { Self.fixed($0, 2) })
        for name in ["fsync", "synchronous_commit"] {
            add("pg_\(name)", inputs.postgresSettings[name])
        }
        add("simulator_cpu_seconds", inputs.simulatorUsage.map { Self.fixed($0.cpuSeconds, 2) })
        add("simulator_peak_rss_mb", inputs.simulatorPeakMemory.map { Self.fixed(Double($0.kilobytes) / 1024, 1) })
        // The bench's own peak: a job figure from wait4 is exact only above this (PeakMemoryWatch).
        add(
            "bench_peak_rss_mb", PeakMemoryWatch.highWaterKilobytes(of: "self").map { Self.fixed(Double($0) / 1024, 1) }
        )
        add("seed_seconds", Self.fixed(inputs.seedSeconds, 2))
        for (phase, key) in Self.phaseKeys {
            add(key, inputs.summary?.phaseSeconds[phase].map { Self.fixed($0, 2) })
        }
        add("bench_seconds", Self.fixed(inputs.benchSeconds, 2))
        add("job_binary", inputs.jobBinary)
    }

    /// The job's phases (`run --json`'s `phaseSeconds`) and the bench's key for each, in the night's
    /// order. A phase the run did not have (no history read on a verifyReceipt night) is left out.
    static let phaseKeys = [
        ("historyRead", "phase_history_read_seconds"), ("queueFill", "phase_queue_fill_seconds"),
        ("verification", "phase_verification_seconds"), ("write", "phase_write_seconds"),
        ("finish", "phase_finish_seconds"),
    ]

    /// The lines for stdout.
    var text: String { lines.map { "\($0.key)=\($0.value)\n" }.joined() }

    /// A report to fill by hand (`--json-keys`).
    init() {}

    mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        lines.append((key, value))
    }

    mutating func miss(_ key: String, _ reason: String) {
        missing.append((key, reason))
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}
