import AppStoreReceipts
import Foundation

/// What the engine acts on in one `run` or `verify-user` (CONTRACT §3), validated by the CLI, whose
/// settings set these fields and take their defaults from `defaults`. What the run was asked besides,
/// for `recon_runs.options` and the log, is its `RunRequest`.
public struct RunOptions: Sendable, Equatable {
    public var dryRun = false
    /// `--as-of`: the instant every user is judged at; nil, a live night: each user is judged at the instant
    /// Apple answered about them (`JudgementInstant`, CONTRACT §9 "As of").
    public var asOf: Date?
    /// When the run started: what a live night records as its `as_of`, and the one instant of the night's
    /// selection (the sweep's overdue cutoff, the end of the notification history read).
    public var startedAt: Date
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

    /// - Parameter startedAt: the one instant a live night stands for, taken once by the caller.
    public init(asOf: Date?, startedAt: Date) {
        self.asOf = asOf
        self.startedAt = startedAt
    }

    /// Every field at its default: the defaults of the settings that set them.
    public static let defaults = RunOptions(asOf: nil, startedAt: Date(timeIntervalSince1970: 0))

    /// The run's one instant where it needs one: `--as-of`, else its start (`recon_runs.as_of`).
    public var nightInstant: Date { asOf ?? startedAt }

    public var shard: String { "\(shardIndex)/\(shardCount)" }
}
