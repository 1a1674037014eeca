import AppStoreReceipts
import CivilTime
import Foundation
import Postgres
import ReconSchema
import Synchronization

/// Runs the nightly batch and `verify-user` (CONTRACT §3, §5–§7) through the same five stages
/// (`execute`): `DueUserSelection` → `AppleVerification` (through an `AppleBackend`) →
/// `UserDecision` → `UserWriting` → `RunFinish`. docs/architecture.md draws them.
///
/// Every thread is the job's own (the reader is the caller's; workers, writers and the transport's
/// loop are dedicated threads): nothing blocks `DispatchQueue.global()`.
public final class ReconciliationEngine: Sendable {
    public let options: RunOptions
    /// What the run was asked, recorded in its row and told in `run.started`.
    public let request: RunRequest
    let databaseURL: String?
    let backend: any AppleBackend
    let driver: ExchangeDriver
    /// The request budget every shard draws on (`--max-requests-per-hour`), which `driver` asks
    /// before each request; nil when none is kept.
    let budget: RequestBudgetLedger?
    let shutdown: ShutdownSignal
    let log: EventLog
    let progress: (@Sendable (RunProgress) -> Void)?
    let progressInterval: Double

    /// - Parameters:
    ///   - backend: makes each user's exchange with Apple; `driver` sends what they ask for.
    ///   - progress: called every `progressInterval` seconds while the run works, never after it
    ///     finished (the CLI draws its progress line or logs `run.progress` from it). With it, the
    ///     nightly run first counts the receipts due, so that the progress knows "of how many".
    ///   - progressInterval: seconds between two calls of `progress`.
    public init(
        options: RunOptions,
        request: RunRequest,
        databaseURL: String?,
        backend: any AppleBackend,
        driver: ExchangeDriver,
        budget: RequestBudgetLedger? = nil,
        shutdown: ShutdownSignal,
        log: EventLog = EventLog(),
        progress: (@Sendable (RunProgress) -> Void)? = nil,
        progressInterval: Double = 1
    ) {
        self.options = options
        self.request = request
        self.databaseURL = databaseURL
        self.backend = backend
        self.driver = driver
        self.budget = budget
        self.shutdown = shutdown
        self.log = log
        self.progress = progress
        self.progressInterval = progressInterval
        budget?.onWait { [log] key, limit, resumesAt in
            log.log(
                .warning, "budget.waiting",
                ["endpoint": key.description, "limit": String(limit), "resumes_at": Instant.formatSeconds(resumesAt)])
        }
    }

    func connect(_ purpose: String) throws -> PostgresConnection {
        try PostgresConnection(conninfo: databaseURL, applicationName: "receipt-recon \(purpose)")
    }

    /// Reconnects the run's stages after a dropped connection, for up to `--db-reconnect-window`; the
    /// request budget's ledger too, which a restart drops with the others.
    func makeReconnector() -> DatabaseReconnector {
        let reconnector = DatabaseReconnector(
            policy: ReconnectPolicy(window: .milliseconds(Int64(options.reconnectWindow * 1000))),
            shutdown: shutdown, log: log, connect: { [self] in try connect($0) })
        budget?.reconnect { try reconnector.reconnect("budget", after: $0) }
        return reconnector
    }

    /// Refuses to run against a database this build has not migrated, whose application tables do not
    /// have the shape the job needs, or whose `products` gives a product a kind the job does not know
    /// (exit 78 with the way out), or whose roles lack a privilege the job's statements need (exit 77
    /// with every missing GRANT), before the run's row exists and before any request to Apple.
    static func requireMigrated(_ connection: PostgresConnection) throws {
        try SchemaReadiness.require(on: connection, applicationTables: true)
        try PrivilegeWalk.require(on: connection)
        try ProductKindCheck.require(on: connection)
    }

    // MARK: - Nightly

    /// The nightly batch: lock, select, verify, correct, report.
    public func runNightly() throws -> RunOutcome {
        let lockConnection = try connect("lock")
        try Self.requireMigrated(lockConnection)
        try EmptyNightCheck.require(on: lockConnection)
        let nightlyKey = AdvisoryLockKey.nightly(shard: options.shard)
        guard try lockConnection.tryAdvisoryLock(nightlyKey) else {
            log.log(.warning, "run.lock_held", ["shard": options.shard])
            return RunOutcome(summary: RunSummary(), end: .lockHeld(shard: options.shard))
        }
        let store = RunStore(connection: lockConnection)
        let interrupted = try store.interruptAbandonedRuns()
        if !interrupted.isEmpty {
            log.log(.warning, "run.previous_interrupted", ["runs": interrupted.map(String.init).joined(separator: ",")])
        }
        let runID = try store.start(kind: .nightly, options: options, request: request)
        let reconnector = makeReconnector()
        let locks = RunLocks(
            connection: lockConnection, runID: runID, nightlyKey: nightlyKey, reconnector: reconnector)
        log.log(
            .info, "run.started",
            [
                "run_id": String(runID), "shard": options.shard, "dry_run": String(options.dryRun),
                "as_of": Instant.formatSeconds(options.nightInstant),
                "live": String(options.asOf == nil),
                "backend": request.backend ?? "verify-receipt", "environment": options.environment.rawValue,
                "bundle_check": request.bundleCheck,
                "rate": request.rateText ?? "unknown", "rate_basis": request.rateBasis ?? "default",
                "sandbox_rate": request.sandboxRateText ?? "unknown",
            ])
        let selection: DueUserSelection
        if let night = try notificationNight(runID: runID) {
            selection = .queued(night, reconnector)
        } else {
            let cutoff = Date().addingTimeInterval(-Double(options.olderThan))
            let reader = DueUserReader(
                connection: try connect("reader"), cutoff: cutoff, shardIndex: options.shardIndex,
                shardCount: options.shardCount, limit: options.limit)
            selection = .due(reader, reconnector)
        }
        return try execute(
            runID: runID, kind: .nightly, locks: locks, reconnector: reconnector, selection: selection,
            subjectUserID: nil)
    }

    // MARK: - One user

    /// `verify-user`: every receipt of one user, now, beside a nightly run if one is going.
    /// - Returns: nil when the user has no receipts and no entitlements (exit 65).
    public func verifyUser(_ userID: String) throws -> (
        outcome: RunOutcome, before: [EntitlementRow], after: [EntitlementRow],
        corrections: [CorrectionRecord], unverdicted: [UnverdictedRow]
    )? {
        let lockConnection = try connect("verify-user")
        try Self.requireMigrated(lockConnection)
        let before = try UnitWriter.entitlements(of: userID, on: lockConnection)
        guard let work = try UserWork.load(userID: userID, on: lockConnection) else { return nil }

        let runID = try RunStore(connection: lockConnection).start(
            kind: .user, options: options, request: request, subjectUserID: userID)
        let reconnector = makeReconnector()
        let locks = RunLocks(connection: lockConnection, runID: runID, nightlyKey: nil, reconnector: reconnector)
        log.log(
            .info, "run.started",
            [
                "run_id": String(runID), "kind": "user", "dry_run": String(options.dryRun),
                "backend": request.backend ?? "verify-receipt", "environment": options.environment.rawValue,
                "bundle_check": request.bundleCheck,
            ])
        let outcome = try execute(
            runID: runID, kind: .user, locks: locks, reconnector: reconnector, selection: .one(work),
            subjectUserID: userID)
        do {
            let (after, corrections, unverdicted) = try locks.withConnection { connection in
                (
                    try UnitWriter.entitlements(of: userID, on: connection),
                    try RunRows(connection: connection, runID: runID).corrections(),
                    try RunRows(connection: connection, runID: runID).unverdicted()
                )
            }
            return (outcome, before, after, corrections, unverdicted)
        } catch is RunLocks.Lost {
            // Another run took this one's row while the database was away: nothing was written after.
            return (outcome, before, before, [], [])
        }
    }
}

/// Errors that end a run with a specific exit code.
public enum EngineError: Error, CustomStringConvertible, Sendable {
    case configuration(String)

    public var description: String {
        switch self {
        case .configuration(let message): return message
        }
    }
}
