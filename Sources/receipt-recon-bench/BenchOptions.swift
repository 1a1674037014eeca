import CivilTime
import CommandLineOptions
import Foundation

/// The bench's command line, validated: the world, the simulated Apple, and the job's knobs.
struct BenchOptions: Sendable, Equatable {
    /// About this many receipt rows are seeded (`simulator seed --receipts`).
    var receipts = 100_000
    /// The job's `--rate`, and the simulator's `--rate-limit`; 0: no limit (`rateLimit` is nil).
    var rate = 400.0
    /// The job's `--concurrency`.
    var concurrency = 64
    var latencyMilliseconds = 100
    var jitterMilliseconds = 20
    /// The world's seed (`simulator seed/serve --seed`).
    var seed: UInt64 = 1
    /// The instant the world is seen at and the job judges expiry against: fixed by default, so two
    /// benches with the same options run against the same world.
    var asOf = "2026-11-01T00:00:00Z"
    /// Passed to `run` as `--http-client X` only when given.
    var httpClient: String?
    /// `verify-receipt` or `server-api`: the job's `--backend`, and what the world is seeded for.
    var backend = "verify-receipt"
    /// Further arguments for `run`, in order.
    var jobArguments: [String] = []
    /// The `receipt-recon` to measure; nil: the one beside this executable.
    var jobBinary: String?
    /// An incremental night (`simulator seed|serve --changed-fraction F`): the job runs without
    /// `--older-than`, reading the notification history; implies the Server API backend.
    var changedFraction: Double?
    /// `--changed-since` of the world (an age such as `1d`), passed through as given; nil: the
    /// simulator's default.
    var changedSince: String?
    /// `--missed-fraction` of the world; nil: the simulator's default.
    var missedFraction: Double?
    /// The job's `--sweep-days`, and the world's `--last-verified-nights`: both are passed, so they agree
    /// whatever either command's default.
    var sweepDays = 30
    /// The job's `--max-requests-per-hour` as given.
    var maxRequestsPerHour: Int?
    /// Leave the cluster (and the bench's files) in place for inspection.
    var keep = false
    /// Measure the JSON parser on colliding against random keys instead of a night (`JSONKeysBench`).
    var jsonKeys = false
    var wantsHelp = false

    static let options: [OptionSpec] = [
        OptionSpec(
            "receipts", .value(placeholder: "N"), "receipts to seed (about; the world is built in whole users)",
            default: "100000"),
        OptionSpec(
            "rate", .value(placeholder: "R"),
            "the job's --rate and the simulator's --rate-limit, requests/s; 0: no limit", default: "400"),
        OptionSpec("concurrency", .value(placeholder: "C"), "the job's --concurrency", default: "64"),
        OptionSpec("latency-ms", .value(placeholder: "L"), "the simulator's fixed latency", default: "100"),
        OptionSpec(
            "jitter-ms", .value(placeholder: "J"), "the simulator's extra latency, uniform in [0, J]",
            default: "20"),
        OptionSpec("seed", .value(placeholder: "S"), "the world's seed", default: "1"),
        OptionSpec(
            "as-of", .value(placeholder: "T"), "the world's instant and the job's --as-of (ISO 8601)",
            default: "2026-11-01T00:00:00Z"),
        OptionSpec("http-client", .value(placeholder: "X"), "pass --http-client X to 'run'", default: "not passed"),
        OptionSpec(
            "backend", .value(placeholder: "verify-receipt|server-api"),
            "the job's backend; server-api seeds StoreKit 2 users too and serves the App Store Server API "
                + "(--pki-dir), its rate limit applying to each endpoint",
            default: "verify-receipt"),
        OptionSpec(
            "changed-fraction", .value(placeholder: "F"),
            "an incremental night: F of the users changed since the last run (implies --backend server-api); "
                + "the job runs without --older-than"),
        OptionSpec(
            "changed-since", .value(placeholder: "AGE"), "with --changed-fraction: when the last run was",
            default: "1d"),
        OptionSpec(
            "missed-fraction", .value(placeholder: "M"),
            "with --changed-fraction: the share of changes the app's webhook missed", default: "0.5"),
        OptionSpec(
            "sweep-days", .value(placeholder: "D"),
            "with --changed-fraction: the job's --sweep-days and the world's --last-verified-nights", default: "30"),
        OptionSpec(
            "max-requests-per-hour", .value(placeholder: "N"), "pass --max-requests-per-hour N to 'run'",
            default: "room for the world: 4 × --receipts, at least the job's 90000"),
        OptionSpec("job-arg", .repeatable(placeholder: "ARG"), "pass ARG to 'run' (repeatable, in order)"),
        OptionSpec(
            "job-binary", .value(placeholder: "PATH"), "the receipt-recon to measure",
            default: "receipt-recon beside this executable"),
        OptionSpec(
            "json-keys", .flag,
            "measure only the JSON parser: 256 KiB objects of colliding against random keys, in this process"),
        OptionSpec("keep", .flag, "keep the cluster and the bench's files; print how to stop and remove them"),
    ]

    static let help = HelpText(
        usage: HelpText.synopsis("receipt-recon-bench", options),
        paragraphs: [
            """
            Measures 'receipt-recon run' end to end: starts a throwaway PostgreSQL cluster (default durability:
            fsync and synchronous_commit on), seeds about N receipts with 'receipt-recon simulator seed', starts
            'receipt-recon simulator serve' (latency L ms + uniform jitter up to J ms, no faults, rate limit R:
            any request above R/s is answered 429 and counted), runs 'receipt-recon run --older-than 0 --rate R
            --concurrency C --json' as a separate process, then prints one key=value per line on stdout.
            Progress goes to stderr. Everything it started is stopped and removed at the end, also on failure.
            """,
            """
            With --rate 0 the simulator has no rate limit and the job gets --rate \(unlimitedJobRateText), far above
            what it can send, so that only C, L and J bound it.
            """,
        ],
        options: options,
        sections: [
            HelpText.Section(
                "KEYS, in this order (the first eight on every measured run, throughput_ratio only with "
                    + "a rate limit; then extras, see docs/benchmarks.md):",
                rows: [
                    ("throughput_ratio", "receipts_per_second / R"),
                    ("receipts_per_second", "receipts the job processed / wall_seconds"),
                    ("cpu_ms_per_1k_receipts", "the job process's user + system CPU, ms per 1000 receipts processed"),
                    ("peak_rss_mb", "the job process's own peak resident memory, MiB (never the bench's)"),
                    (
                        "apple_requests_per_receipt",
                        "verifyReceipt requests the simulator received / receipts processed"
                    ),
                    ("over_limit_429", "requests the simulator answered 429 (above R/s)"),
                    ("db_seconds", "seconds the job spent waiting on PostgreSQL ('run --json' databaseSeconds)"),
                    ("wall_seconds", "the 'run' process, from spawn to exit"),
                    (
                        "ideal_receipts_per_second",
                        "min(R, C / (L + J/2)), L and J in seconds: the rate limit or what C "
                            + "requests in flight allow at the simulator's mean latency (C / (L + J/2) alone with --rate 0)"
                    ),
                    ("ideal_ratio", "receipts_per_second / ideal_receipts_per_second"),
                ]),
            HelpText.Section(
                "EXIT CODES:",
                rows: [
                    ("0", "measured"),
                    ("1", "the job failed (exit other than 0 or 1) or a required key could not be measured"),
                    ("64", "usage error"),
                    ("69", "PostgreSQL, the receipt-recon executable or the simulator unavailable"),
                    ("70", "internal error"),
                ], columnWidth: 3),
        ]
    ).text

    /// Parses the arguments after the program name.
    /// - Throws: an `OptionError` naming the bad option or argument.
    init(_ arguments: [String]) throws(OptionError) {
        let parsed = try ParsedArguments(program: "receipt-recon-bench", arguments: arguments, options: Self.options)
        try parsed.expectNoPositionals()
        wantsHelp = parsed.wantsHelp
        let read = OptionReader(parsed)
        receipts = try read.integer("receipts", in: 1...20_000_000) ?? receipts
        rate = try read.nonNegativeNumber("rate") ?? rate
        concurrency = try read.integer("concurrency", in: 1...1024) ?? concurrency
        latencyMilliseconds = try read.integer("latency-ms", in: 0...600_000) ?? latencyMilliseconds
        jitterMilliseconds = try read.integer("jitter-ms", in: 0...600_000) ?? jitterMilliseconds
        seed = try read.unsignedInteger("seed") ?? seed
        asOf =
            try read.value("as-of") { parse, text throws(OptionError) in
                guard Instant.parse(text) != nil else { throw parse.fail("as-of", Instant.expected, text) }
                return text
            } ?? asOf
        httpClient = try read.nonEmpty("http-client", "a client name")
        backend = try read.choice("backend", ["verify-receipt", "server-api"]) ?? backend
        changedFraction = try read.ratio("changed-fraction")
        changedSince = try read.nonEmpty("changed-since", "an age such as 1d")
        missedFraction = try read.ratio("missed-fraction")
        sweepDays = try read.integer("sweep-days", in: 1...3650) ?? sweepDays
        maxRequestsPerHour = try read.integer("max-requests-per-hour", in: 1...100_000_000)
        if changedFraction == nil,
            let given = ["changed-since", "missed-fraction", "sweep-days"].first(where: { parsed.value($0) != nil })
        {
            throw OptionError("--\(given) needs --changed-fraction", invocation: "receipt-recon-bench")
        }
        if changedFraction != nil {
            if parsed.value("backend") == "verify-receipt" {
                throw OptionError(
                    "--changed-fraction measures the Server API backend, not verify-receipt",
                    invocation: "receipt-recon-bench")
            }
            backend = "server-api"
        }
        jobArguments = parsed.all("job-arg")
        jobBinary = try read.nonEmpty("job-binary", "a path")
        keep = parsed.has("keep")
        jsonKeys = parsed.has("json-keys")
    }

    init() {}

    /// The simulator's `--rate-limit`; nil: none (`--rate 0`).
    var rateLimit: Double? { rate > 0 ? rate : nil }

    /// The job's `--rate` under `--rate 0`. `run` needs a rate above 0; a million requests per second is
    /// far beyond what one job process sends over loopback, so the throttle never holds a request back.
    static let unlimitedJobRate = 1_000_000.0
    static let unlimitedJobRateText = text(unlimitedJobRate)

    /// `R` as given: `400`, not `400.0`; `0` for no limit.
    var rateText: String { Self.text(rate) }

    /// The job's `--rate`.
    var jobRateText: String { rateLimit.map(Self.text) ?? Self.unlimitedJobRateText }

    /// The job's `--max-requests-per-hour`: as given, else more than the world can ask of one endpoint in
    /// an hour. The job's own default (90,000 per endpoint and clock hour) is below what a full run of
    /// 100,000 receipts asks, which would then wait for the next clock hour, up to an hour: the budget's
    /// behaviour (`RequestBudgetLedgerTests`, `RequestBudgetDriverTests`), not the throughput measured here.
    var jobMaxRequestsPerHour: Int { maxRequestsPerHour ?? max(90_000, 4 * receipts) }

    var isServerAPI: Bool { backend == "server-api" }

    var isIncremental: Bool { changedFraction != nil }

    /// The world options of an incremental night, for both `simulator seed` and `serve`.
    var incrementalWorldArguments: [String] {
        guard let changedFraction else { return [] }
        var arguments = ["--changed-fraction", Self.text(changedFraction)]
        if let changedSince { arguments += ["--changed-since", changedSince] }
        if let missedFraction { arguments += ["--missed-fraction", Self.text(missedFraction)] }
        return arguments + ["--last-verified-nights", String(sweepDays)]
    }

    /// The most receipts per second this setup allows, `min(R, C / (L + J/2))`: either the rate limit
    /// binds, or C requests in flight, each taking the simulator's mean latency (its jitter is uniform
    /// in [0, J]). Nil when nothing bounds it: no rate limit and no latency.
    var idealReceiptsPerSecond: Double? { idealReceiptsPerSecond(requestsPerReceipt: ["verify_receipt": 1]) }

    /// The same bound for any mix of endpoints, `k_e` requests of endpoint e per receipt: each endpoint's
    /// limit allows `R / k_e` receipts per second (Apple limits endpoints separately), and C requests in
    /// flight allow `C / ((L + J/2) · Σ k_e)`. With verifyReceipt (one request per receipt) this is
    /// `min(R, C / (L + J/2))`.
    func idealReceiptsPerSecond(requestsPerReceipt: [String: Double]) -> Double? {
        let meanLatencySeconds = (Double(latencyMilliseconds) + Double(jitterMilliseconds) / 2) / 1000
        let total = requestsPerReceipt.values.reduce(0, +)
        let inFlightBound =
            meanLatencySeconds > 0 && total > 0 ? Double(concurrency) / (meanLatencySeconds * total) : nil
        let busiest = requestsPerReceipt.values.max() ?? 0
        let rateBound = rateLimit.flatMap { rate in busiest > 0 ? rate / busiest : nil }
        switch (rateBound, inFlightBound) {
        case (let rate?, let bound?): return min(rate, bound)
        case (let rate, let bound): return rate ?? bound
        }
    }

    private static func text(_ number: Double) -> String {
        number == number.rounded() && number < 1e15 ? String(Int64(number)) : String(number)
    }
}
