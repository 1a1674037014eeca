import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

/// The options of `run` and `verify-user` (CONTRACT §3), validated.
public struct VerificationOptions: Sendable {
    public var dryRun = RunScopeSettings.dryRun.defaultValue
    /// The instant against which expiry is judged; nil means "now" at the start of the run.
    public var asOf: Date?
    public var rate = AppleRequestSettings.rate.defaultValue
    /// Where `rate` came from (`RunRequest.rateBasis`): `--rate`, the default, or the default shared by shards.
    public var rateBasis = "default"
    /// Requests per second to each sandbox endpoint (`--sandbox-rate`; a tenth of `rate` by default).
    public var sandboxRate = AppleRequestSettings.sandboxRate.defaultValue
    public var concurrency = AppleRequestSettings.concurrency.defaultValue
    public var timeout = AppleRequestSettings.timeout.defaultValue
    public var maxAttempts = AppleRequestSettings.maxAttempts.defaultValue
    /// `run` only: seconds; receipts verified more recently are skipped.
    public var olderThan = RunScopeSettings.olderThan.defaultValue
    public var limit: Int?
    public var shard = RunScopeSettings.shard.defaultValue
    public var sandboxPolicy = SafetySettings.sandboxPolicy.defaultValue
    public var maxUnverifiedRatio = SafetySettings.maxUnverifiedRatio.defaultValue
    public var maxRevokeRatio = SafetySettings.maxRevokeRatio.defaultValue
    public var json = OutputSettings.json.defaultValue
    public var metricsFile: String?
    /// How requests reach Apple (`--http-client`, `RECON_HTTP_CLIENT`).
    public var httpClient = AppleRequestSettings.httpClient.defaultValue
    /// Seconds to keep reconnecting after the database drops mid-run (`--db-reconnect-window`,
    /// `RECON_DB_RECONNECT_WINDOW`).
    public var reconnectWindow = DatabaseSettings.reconnectWindow.defaultValue
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
    public var maxAnswerBytes = AppleRequestSettings.maxAnswerBytes.defaultValue
    /// The longest wait before a retry, seconds (`--max-retry-wait`, `RECON_MAX_RETRY_WAIT`): a
    /// `Retry-After` beyond it ends the receipt `unverified` for this run, and backoffs stay within it.
    public var maxRetryWait = AppleRequestSettings.maxRetryWait.defaultValue
    /// `run` only: whether `--older-than` was given (under notifications it then adds its users).
    public var olderThanGiven = false
    /// `run` only, `--backend server-api`: where a first run reads notifications from, seconds back.
    public var notificationsSince = NotificationSettings.notificationsSince.defaultValue
    public var noNotifications = NotificationSettings.noNotifications.defaultValue
    public var sweepDays = NotificationSettings.sweepDays.defaultValue
    /// Apple requests per endpoint per clock hour, every shard and `verify-user` together.
    public var maxRequestsPerHour = NotificationSettings.maxRequestsPerHour.defaultValue
    /// The same for each sandbox endpoint (`--sandbox-max-requests-per-hour`; a tenth by default).
    public var sandboxMaxRequestsPerHour = NotificationSettings.sandboxMaxRequestsPerHour.defaultValue
    /// `run` only: hours a run waits for the next hour's budget.
    public var budgetHours = NotificationSettings.budgetHours.defaultValue

    static var shared: [OptionSpec] { SettingsTable.options(SettingsTable.verification) }
    static var runOnly: [OptionSpec] { SettingsTable.options(SettingsTable.runOnly) }

    /// Reads every option by the settings' one rule (`SettingResolver`), in the order the checks always ran.
    /// - Throws: a usage error (64) for a bad flag value, a configuration error (78) for a bad
    ///   `RECON_HTTP_CLIENT`, `RECON_MAX_ANSWER_BYTES`, `RECON_MAX_RETRY_WAIT` or
    ///   `RECON_DB_RECONNECT_WINDOW`, as `Configuration.load` does for its variables.
    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        let settings = SettingResolver(arguments, environment: environment)
        dryRun = try settings.value(RunScopeSettings.dryRun)
        json = try settings.value(OutputSettings.json)
        asOf = try settings.value(RunScopeSettings.asOf)
        let givenRate = try settings.given(AppleRequestSettings.rate)
        concurrency = try settings.value(AppleRequestSettings.concurrency)
        timeout = try settings.value(AppleRequestSettings.timeout)
        maxAttempts = try settings.value(AppleRequestSettings.maxAttempts)
        let givenOlderThan = try settings.given(RunScopeSettings.olderThan)
        olderThan = givenOlderThan ?? RunScopeSettings.olderThan.defaultValue
        olderThanGiven = givenOlderThan != nil
        limit = try settings.value(RunScopeSettings.limit)
        shard = try settings.value(RunScopeSettings.shard)
        (rate, rateBasis) = Self.rate(given: givenRate, shardCount: shard.count)
        sandboxRate = Self.sandboxRate(
            given: try settings.given(AppleRequestSettings.sandboxRate), productionRate: rate)
        sandboxPolicy = try settings.value(SafetySettings.sandboxPolicy)
        maxUnverifiedRatio = try settings.value(SafetySettings.maxUnverifiedRatio)
        maxRevokeRatio = try settings.value(SafetySettings.maxRevokeRatio)
        metricsFile = try settings.value(OutputSettings.metricsFile)
        httpClient = try settings.value(AppleRequestSettings.httpClient)
        reconnectWindow = try settings.value(DatabaseSettings.reconnectWindow)
        maxAnswerBytes = try settings.value(AppleRequestSettings.maxAnswerBytes)
        maxRetryWait = try settings.value(AppleRequestSettings.maxRetryWait)
        notificationsSince = try settings.value(NotificationSettings.notificationsSince)
        noNotifications = try settings.value(NotificationSettings.noNotifications)
        sweepDays = try settings.value(NotificationSettings.sweepDays)
        maxRequestsPerHour = try settings.value(NotificationSettings.maxRequestsPerHour)
        sandboxMaxRequestsPerHour = Self.sandboxMaxRequestsPerHour(
            given: try settings.given(NotificationSettings.sandboxMaxRequestsPerHour), production: maxRequestsPerHour)
        budgetHours = try settings.value(NotificationSettings.budgetHours)
    }
}
