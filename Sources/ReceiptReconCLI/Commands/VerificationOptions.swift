import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

/// The options of `run` and `verify-user` (CONTRACT §3), validated.
public struct VerificationOptions: Sendable {
    public var dryRun = false
    /// The instant against which expiry is judged; nil means "now" at the start of the run.
    public var asOf: Date?
    public var rate: Double = Self.defaultRate
    /// Where `rate` came from (`RunOptions.rateBasis`): `--rate`, the default, or the default shared by shards.
    public var rateBasis = "default"
    public var concurrency = 8
    public var timeout: Double = 30
    public var maxAttempts = 4
    /// `run` only: seconds; receipts verified more recently are skipped.
    public var olderThan = 20 * 3600
    public var limit: Int?
    public var shard: (index: Int, count: Int) = (0, 1)
    public var sandboxPolicy = SandboxPolicy.revoke
    public var maxUnverifiedRatio = 0.10
    public var maxRevokeRatio = 0.20
    public var json = false
    public var metricsFile: String?
    /// How requests reach Apple (`--http-client`, `RECON_HTTP_CLIENT`).
    public var httpClient = HTTPTransportKind.curl
    /// Seconds to keep reconnecting after the database drops mid-run (`--db-reconnect-window`,
    /// `RECON_DB_RECONNECT_WINDOW`).
    public var reconnectWindow = 120.0
    /// The most bytes of one Apple answer kept (`--max-answer-bytes`, `RECON_MAX_ANSWER_BYTES`); a
    /// larger answer is abandoned as it arrives, a transient failure (retried, then `unverified`).
    ///
    /// The default, 8 MiB, is a few MiB above the largest answer a real receipt can get. The job accepts
    /// receipts of up to 4 MiB of base64 (`LocalReceiptDecoder.maxBase64Length`), and Apple echoes the
    /// receipt in `latest_receipt`: 4 MiB. The rest of the answer is the JSON of the purchases, about
    /// 740 bytes per transaction, listed twice (`receipt.in_app` and `latest_receipt_info`): ten years of
    /// weekly renewals (520 transactions) come to 0.75 MiB. So 4.8 MiB; 8 MiB leaves room for more.
    /// Put per purchase, each one costs about 540 bytes of `latest_receipt` and 1,470 of JSON, so 8 MiB
    /// holds the answer to any receipt of up to about 4,000 purchases, 80 years of weekly renewals. (A
    /// receipt of the full 4 MiB made of nothing but purchases, about 7,700 of them, would get a 15 MiB
    /// answer; no subscription history is that long.) Memory for answers stays under this times
    /// `--concurrency`.
    public var maxAnswerBytes = AnswerSizeLimit.standard.bytes
    /// The longest wait before a retry, seconds (`--max-retry-wait`, `RECON_MAX_RETRY_WAIT`): a
    /// `Retry-After` beyond it ends the receipt `unverified` for this run, and backoffs stay within it.
    public var maxRetryWait = 300.0

    static let shared: [OptionSpec] = [
        OptionSpec("dry-run", .flag, "compute and record everything, change no entitlement"),
        OptionSpec(
            "as-of", .value(placeholder: "T"), "the instant against which expiry is judged (ISO 8601)", default: "now"),
        OptionSpec(
            "rate", .value(placeholder: "R"),
            "most requests per second to each Apple endpoint, retries and re-routes included; without --rate, "
                + "--shard I/N (N > 1) divides the default by N so that all N shards together keep to it",
            default: "20, or 20/N with --shard I/N"),
        OptionSpec("concurrency", .value(placeholder: "N"), "most requests in flight", default: "8"),
        OptionSpec("timeout", .value(placeholder: "S"), "per-request timeout, seconds", default: "30"),
        OptionSpec(
            "max-attempts", .value(placeholder: "N"), "attempts per endpoint for retryable failures", default: "4"),
        OptionSpec(
            "sandbox-policy", .value(placeholder: "revoke|flag"),
            "what a receipt from the wrong environment does to entitlements", default: "revoke"),
        OptionSpec(
            "max-unverified-ratio", .value(placeholder: "X"),
            "circuit breaker: stop when unverified/processed exceeds X (after 100 receipts)", default: "0.10"),
        OptionSpec(
            "max-revoke-ratio", .value(placeholder: "X"),
            "circuit breaker: stop when revoked users/processed users exceeds X (after 100 receipts)", default: "0.20"),
        OptionSpec(
            "json", .flag,
            "print the summary as one JSON object on stdout; on failure too, with status, exitCode and reason"),
        OptionSpec(
            "metrics-file", .value(placeholder: "PATH"),
            "write Prometheus text-format metrics for node_exporter's textfile collector (atomically) at every end "
                + "of the run once its options were understood, a run that never started included; the last success "
                + "is carried forward, a dry run's series kept apart"),
        OptionSpec(
            "http-client", .value(placeholder: "curl|urlsession"),
            "how requests reach Apple: libcurl, or Foundation's URLSession at about ten times the CPU per request "
                + "(overrides RECON_HTTP_CLIENT)", default: "curl"),
        OptionSpec(
            "db-reconnect-window", .value(placeholder: "S"),
            "when the database connection drops mid-run, keep reconnecting for S seconds before giving up with 69 "
                + "(overrides RECON_DB_RECONNECT_WINDOW)", default: "120"),
        OptionSpec(
            "max-answer-bytes", .value(placeholder: "N"),
            "abandon an Apple answer larger than N bytes (retried, then unverified; overrides RECON_MAX_ANSWER_BYTES)",
            default: "8388608"),
        OptionSpec(
            "max-retry-wait", .value(placeholder: "S"),
            "longest wait before a retry, seconds; a Retry-After beyond it leaves the receipt unverified for this run "
                + "(overrides RECON_MAX_RETRY_WAIT)", default: "300"),
    ]

    /// `--max-answer-bytes`: at least 1 KiB (no real answer is smaller than its JSON envelope), at most
    /// 1 GiB (the JSON parser's own ceiling is 2 GiB).
    static let answerByteRange = 1024...(1 << 30)
    /// `--max-retry-wait`: up to a day.
    static let retryWaitRange = 0.0...86_400

    static let runOnly: [OptionSpec] = [
        OptionSpec(
            "older-than", .value(placeholder: "D"),
            "re-verify receipts last verified before now minus D (90m, 20h, 7d, 0)", default: "20h"),
        OptionSpec("limit", .value(placeholder: "N"), "at most N receipts this run", default: "none"),
        OptionSpec(
            "shard", .value(placeholder: "I/N"),
            "handle only users in part I (0-based) of N disjoint hash parts; the nightly lock is per shard",
            default: "0/1"),
    ]

    /// - Throws: a usage error (64) for a bad flag value, a configuration error (78) for a bad
    ///   `RECON_HTTP_CLIENT`, `RECON_MAX_ANSWER_BYTES` or `RECON_MAX_RETRY_WAIT`, as `Configuration.load`
    ///   does for its variables.
    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        let read = arguments.read
        dryRun = arguments.has("dry-run")
        json = arguments.has("json")
        asOf = try read.instant("as-of") ?? asOf
        rate = try read.positiveNumber("rate") ?? rate
        concurrency = try read.integer("concurrency", in: 1...1024) ?? concurrency
        timeout = try read.positiveNumber("timeout") ?? timeout
        maxAttempts = try read.integer("max-attempts", in: 1...20) ?? maxAttempts
        olderThan = try read.age("older-than") ?? olderThan
        limit = try read.integer("limit", in: 1...Int.max) ?? limit
        shard = try read.shard("shard") ?? shard
        (rate, rateBasis) = Self.rate(given: arguments.value("rate") == nil ? nil : rate, shardCount: shard.count)
        sandboxPolicy =
            try read.choice("sandbox-policy", SandboxPolicy.allCases.map(\.rawValue)).flatMap(
                SandboxPolicy.init(rawValue:)) ?? sandboxPolicy
        maxUnverifiedRatio = try read.ratio("max-unverified-ratio") ?? maxUnverifiedRatio
        maxRevokeRatio = try read.ratio("max-revoke-ratio") ?? maxRevokeRatio
        if let text = arguments.value("metrics-file") {
            guard !text.isEmpty else { throw .usage("--metrics-file needs a path", command: arguments.command) }
            metricsFile = text
        }
        let clients = HTTPTransportKind.allCases.map(\.rawValue)
        if let text = try read.choice("http-client", clients) {
            httpClient = HTTPTransportKind(rawValue: text)!
        } else if let text = environment["RECON_HTTP_CLIENT"], !text.isEmpty {
            guard let kind = HTTPTransportKind(rawValue: text) else {
                throw .configuration("RECON_HTTP_CLIENT must be 'curl' or 'urlsession', not '\(text)'")
            }
            httpClient = kind
        }
        if let seconds = try read.nonNegativeNumber("db-reconnect-window") {
            reconnectWindow = seconds
        } else if let text = environment["RECON_DB_RECONNECT_WINDOW"], !text.isEmpty {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw .configuration("RECON_DB_RECONNECT_WINDOW must be a number of seconds (0 or more), not '\(text)'")
            }
            reconnectWindow = seconds
        }
        if let bytes = try read.integer("max-answer-bytes", in: Self.answerByteRange) {
            maxAnswerBytes = bytes
        } else if let text = environment["RECON_MAX_ANSWER_BYTES"], !text.isEmpty {
            guard let bytes = Int(text), Self.answerByteRange.contains(bytes) else {
                throw .configuration(
                    "RECON_MAX_ANSWER_BYTES must be a whole number of bytes from \(Self.answerByteRange.lowerBound) "
                        + "to \(Self.answerByteRange.upperBound), not '\(text)'")
            }
            maxAnswerBytes = bytes
        }
        if let seconds = try read.value(
            "max-retry-wait",
            { parse, text throws(OptionError) in
                guard let seconds = Double(text), Self.retryWaitRange.contains(seconds) else {
                    throw parse.fail("max-retry-wait", "a number of seconds from 0 to 86400", text)
                }
                return seconds
            })
        {
            maxRetryWait = seconds
        } else if let text = environment["RECON_MAX_RETRY_WAIT"], !text.isEmpty {
            guard let seconds = Double(text), Self.retryWaitRange.contains(seconds) else {
                throw .configuration("RECON_MAX_RETRY_WAIT must be a number of seconds from 0 to 86400, not '\(text)'")
            }
            maxRetryWait = seconds
        }
    }
}
