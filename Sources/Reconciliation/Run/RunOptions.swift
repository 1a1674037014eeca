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
    /// A `--backend server-api` night driven by Apple's notification history (`run` only); nil: the
    /// receipts last verified before `olderThan` are due, as with verifyReceipt.
    public var notifications: NotificationSelection?

    /// What a night driven by notifications takes: the users Apple's history names, the users never
    /// verified, and a sweep of the longest-unverified (CONTRACT §9 "Notification history").
    public struct NotificationSelection: Sendable, Equatable {
        /// Seconds before the run's end of history a first run (no cursor yet) starts reading.
        public var since: Int
        /// Every user is re-verified at least every this many days.
        public var sweepDays: Int
        /// `--older-than` was given: its users are due too (otherwise it selects nobody).
        public var olderThanGiven: Bool

        public init(since: Int, sweepDays: Int, olderThanGiven: Bool) {
            self.since = since
            self.sweepDays = sweepDays
            self.olderThanGiven = olderThanGiven
        }
    }

    public init(asOf: Date) { self.asOf = asOf }

    public var shard: String { "\(shardIndex)/\(shardCount)" }
}
