import AppStoreReceipts
import CommandLineOptions
import Reconciliation

/// How the job asks Apple: pace, parallelism, patience, and the limits on what it waits for and keeps.
enum AppleRequestSettings {
    /// Apple's limits are per app, so the default is what all the job's processes together ask; without
    /// `--rate`, `--shard I/N` divides it among the N shards (`RunSettings.rateBasis` says so).
    static let rate = Setting(
        option: OptionSpec(
            "rate", .value(placeholder: "R"),
            "most requests per second to each Apple endpoint, retries and re-routes included; without --rate, "
                + "--shard I/N (N > 1) divides the default by N so that all N shards together keep to it",
            default: "20, or 20/N with --shard I/N"),
        default: 20.0, record: RunRequest.Key.rate,
        parse: { parse, text throws(OptionError) in try parse.positiveNumber("rate", text) }
    ).defaulting { settings, declared in
        let shardCount = settings[RunScopeSettings.shard].count
        return shardCount > 1 ? declared / Double(shardCount) : declared
    }

    /// Apple limits the sandbox at a tenth of production on every endpoint, so the sandbox's requests (a
    /// sandbox database's, or the hops of a production one) have buckets of their own at a tenth of the
    /// production rate in effect (so divided among shards as that one is).
    static let sandboxRate = Setting(
        option: OptionSpec(
            "sandbox-rate", .value(placeholder: "R"),
            "most requests per second to each Apple endpoint in the sandbox (a sandbox database, or hops to the "
                + "sandbox), paced apart from production; Apple's sandbox limits are a tenth of production's",
            default: "a tenth of the production rate in effect: 2, or 2/N with --shard I/N"),
        default: SandboxLimits.rate(production: rate.defaultValue), record: "sandboxRate",
        parse: { parse, text throws(OptionError) in try parse.positiveNumber("sandbox-rate", text) }
    ).defaulting { settings, _ in SandboxLimits.rate(production: settings[rate]) }

    static let concurrency = Setting(
        option: OptionSpec("concurrency", .value(placeholder: "N"), "most requests in flight", default: "8"),
        default: RunOptions.defaults.concurrency, record: "concurrency",
        parse: { parse, text throws(OptionError) in try parse.integer("concurrency", text, in: 1...1024) }
    ).applied(to: \.concurrency)

    /// Per-request timeout, seconds.
    static let timeout = Setting(
        option: OptionSpec("timeout", .value(placeholder: "S"), "per-request timeout, seconds", default: "30"),
        default: 30.0, record: "timeout",
        parse: { parse, text throws(OptionError) in try parse.positiveNumber("timeout", text) })

    static let maxAttempts = Setting(
        option: OptionSpec(
            "max-attempts", .value(placeholder: "N"), "attempts per endpoint for retryable failures", default: "4"),
        default: 4, record: "maxAttempts",
        parse: { parse, text throws(OptionError) in try parse.integer("max-attempts", text, in: 1...20) })

    static let httpClient = Setting(
        option: OptionSpec(
            "http-client", .value(placeholder: "curl|urlsession"),
            "how requests reach Apple: libcurl, or Foundation's URLSession at about ten times the CPU per request "
                + "(overrides RECON_HTTP_CLIENT)", default: "curl"),
        variable: SettingVariable(
            "RECON_HTTP_CLIENT", "curl or urlsession: how requests reach Apple (--http-client); default: curl",
            refusal: .mustBe("'curl' or 'urlsession'")),
        default: HTTPTransportKind.curl, documented: "`curl`", record: "httpClient",
        parse: { parse, text throws(OptionError) in
            HTTPTransportKind(
                rawValue: try parse.choice("http-client", text, HTTPTransportKind.allCases.map(\.rawValue)))!
        })

    /// At least 1 KiB (no real answer is smaller than its JSON envelope), at most 1 GiB (the JSON parser's
    /// own ceiling is 2 GiB).
    static let answerByteRange = 1024...(1 << 30)

    /// The most bytes of one Apple answer kept; a larger answer is abandoned as it arrives, a transient
    /// failure (retried, then `unverified`).
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
    static let maxAnswerBytes = Setting(
        option: OptionSpec(
            "max-answer-bytes", .value(placeholder: "N"),
            "abandon an Apple answer larger than N bytes (retried, then unverified; overrides RECON_MAX_ANSWER_BYTES)",
            default: "8388608"),
        variable: SettingVariable(
            "RECON_MAX_ANSWER_BYTES",
            "abandon an Apple answer larger than this many bytes (--max-answer-bytes); default: 8388608 (8 MiB)",
            refusal: .mustBe(
                "a whole number of bytes from \(answerByteRange.lowerBound) to \(answerByteRange.upperBound)")),
        default: AnswerSizeLimit.standard.bytes, documented: "8388608", record: "maxAnswerBytes",
        parse: { parse, text throws(OptionError) in try parse.integer("max-answer-bytes", text, in: answerByteRange) })

    /// Up to a day.
    static let retryWaitRange = 0.0...86_400

    /// The longest wait before a retry, seconds: a `Retry-After` beyond it ends the receipt `unverified`
    /// for this run, and backoffs stay within it.
    static let maxRetryWait = Setting(
        option: OptionSpec(
            "max-retry-wait", .value(placeholder: "S"),
            "longest wait before a retry, seconds; a Retry-After beyond it leaves the receipt unverified for this run "
                + "(overrides RECON_MAX_RETRY_WAIT)", default: "300"),
        variable: SettingVariable(
            "RECON_MAX_RETRY_WAIT",
            "longest wait before a retry, seconds; a longer Retry-After leaves the receipt unverified "
                + "(--max-retry-wait); default: 300",
            refusal: .mustBe("a number of seconds from 0 to 86400")),
        default: 300.0, documented: "300", record: "maxRetryWait",
        parse: { parse, text throws(OptionError) in
            guard let seconds = Double(text), retryWaitRange.contains(seconds) else {
                throw parse.fail("max-retry-wait", "a number of seconds from 0 to 86400", text)
            }
            return seconds
        })
}
