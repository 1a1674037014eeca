import AppStoreReceipts
import Foundation

/// What the engine acts on in one `run` or `verify-user` (CONTRACT §3), validated by the CLI. What the run
/// was asked besides, for `recon_runs.options` and the log, is its `RunRequest`.
public struct RunOptions: Sendable, Equatable {
    public var dryRun = false
    /// The instant against which expiry is judged.
    public var asOf: Date
    /// Most requests in flight; the writers' queue is sized from it.
    public var concurrency = 8
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
    /// Seconds the run keeps trying to reach PostgreSQL again after a connection drops mid-run.
    public var reconnectWindow: Double = 120

    public init(asOf: Date) { self.asOf = asOf }

    public var shard: String { "\(shardIndex)/\(shardCount)" }
}
