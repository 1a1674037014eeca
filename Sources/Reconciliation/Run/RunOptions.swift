import AppStoreReceipts
import Foundation

/// Everything one `run` or `verify-user` was asked to do (CONTRACT §3), validated by the CLI.
public struct RunOptions: Sendable, Codable, Equatable {
    public var dryRun = false
    /// The instant against which expiry is judged.
    public var asOf: Date
    public var rate: Double = 20
    /// Where `rate` came from: `--rate`, `default`, or the default divided among the shards
    /// (`RunOptions+Rate`); nil in rows written before shards shared the rate.
    public var rateBasis: String?
    public var concurrency = 8
    /// Per-request timeout, seconds.
    public var timeout: Double = 30
    public var maxAttempts = 4
    /// Seconds; receipts verified more recently than now minus this are not selected (`run` only).
    public var olderThan = 20 * 3600
    public var limit: Int?
    public var shardIndex = 0
    public var shardCount = 1
    public var sandboxPolicy: SandboxPolicy = .revoke
    public var maxUnverifiedRatio = 0.10
    public var maxRevokeRatio = 0.20
    /// The environment this database serves.
    public var environment: AppStoreEnvironment = .production
    /// Accepted bundle ids; empty: no check.
    public var bundleIDs: [String] = []
    /// How requests reached Apple, kept in `recon_runs.options` so an odd night can be tied to the
    /// transport; nil in rows written before `--http-client` existed.
    public var httpClient: HTTPTransportKind?
    /// Seconds the run keeps trying to reach PostgreSQL again after a connection drops mid-run.
    public var reconnectWindow: Double = 120
    /// The limits the Apple client ran under (`--max-answer-bytes`, `--max-retry-wait`), kept in
    /// `recon_runs.options` so a night of unverified receipts can be tied to them; nil in older rows.
    public var maxAnswerBytes: Int?
    public var maxRetryWait: Double?
    /// The root certificate files signed data was checked against in place of Apple Root CA - G3
    /// (`APPLE_ROOT_CERTIFICATES`), kept in `recon_runs.options` so a run that trusted a staging root
    /// shows it; nil for the built-in root and in older rows.
    public var signedDataRoots: [String]?
    /// `--backend` (`verify-receipt`, `server-api`); nil in rows written before there was a choice.
    public var backend: String?
    /// The version of receipt-recon that ran (`ReceiptRecon.version`, given by the CLI); nil in older rows.
    public var version: String?

    public init(asOf: Date) { self.asOf = asOf }

    public var shard: String { "\(shardIndex)/\(shardCount)" }
}
