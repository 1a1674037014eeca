import AppStoreReceipts
import Foundation
import Postgres
import ReconSchema
import Synchronization

/// Runs the nightly batch and `verify-user` (CONTRACT §3, §5–§7).
///
/// Concurrency shape (DESIGN "worker lanes"): one reader thread pages due users from PostgreSQL into
/// a bounded queue; `--concurrency` lane threads each take a user, check its receipts (every
/// verifyReceipt request passes the shared token bucket and in-flight cap) and compute its truth;
/// two writer threads, each owning a connection, write batches of users (up to 64, gathered for up
/// to 100 ms), one transaction per batch, under each user's advisory lock. Every thread is the job's own: nothing blocks `DispatchQueue.global()`.
///
/// Safety: writers wait until 100 receipts were classified (or the run ran out of work) before the
/// first write, so a 21004 or an outage that trips a breaker early stops the run before any
/// correction. A breaker or 21004/21000 stops the reader, drains the lanes and discards unwritten
/// users; SIGINT/SIGTERM stop the reader and let in-flight users finish.
public final class ReconciliationEngine: Sendable {
    public let options: RunOptions
    let databaseURL: String?
    let client: VerifyReceiptClient
    let shutdown: ShutdownSignal
    let log: EventLog
    let progress: (@Sendable (RunSummary) -> Void)?

    /// - Parameter progress: called about once a second with the figures so far (the CLI draws its
    ///   progress line from it).
    public init(
        options: RunOptions,
        databaseURL: String?,
        client: VerifyReceiptClient,
        shutdown: ShutdownSignal,
        log: EventLog = EventLog(),
        progress: (@Sendable (RunSummary) -> Void)? = nil
    ) {
        self.options = options
        self.databaseURL = databaseURL
        self.client = client
        self.shutdown = shutdown
        self.log = log
        self.progress = progress
    }

    /// How a run ended.
    public struct Outcome: Sendable {
        public var summary: RunSummary
        public var exitCode: Int32
        /// Set when the nightly lock was held by another run: nothing was done, no run row exists.
        public var lockHeld = false
    }

    func connect(_ purpose: String) throws -> PostgresConnection {
        try PostgresConnection(conninfo: databaseURL, applicationName: "receipt-recon \(purpose)")
    }

    /// Refuses to run against a schema this build has not migrated (exit 78 with the way out).
    static func requireMigrated(_ connection: PostgresConnection) throws {
        let pending = try Migrator().pending(on: connection)
        guard pending.isEmpty else {
            throw EngineError.configuration("the database schema is not up to date (\(pending.count) migration(s) pending): "
                + "run 'receipt-recon migrate' first")
        }
    }

    // MARK: - Nightly

    /// The nightly batch: lock, select, verify, correct, report.
    public func runNightly() throws -> Outcome {
        let lockConnection = try connect("lock")
        try Self.requireMigrated(lockConnection)
        let nightlyKey = AdvisoryLockKey(name: "receipt-recon:nightly:\(options.shard)")
        guard try lockConnection.tryAdvisoryLock(nightlyKey) else {
            log.log(.warning, "run.lock_held", ["shard": options.shard])
            var outcome = Outcome(summary: RunSummary(), exitCode: 75)
            outcome.lockHeld = true
            return outcome
        }
        let store = RunStore(connection: lockConnection)
        let interrupted = try store.interruptAbandonedRuns()
        if !interrupted.isEmpty {
            log.log(.warning, "run.previous_interrupted", ["runs": interrupted.map(String.init).joined(separator: ",")])
        }
        let runID = try store.start(kind: .nightly, options: options)
        log.log(.info, "run.started", ["run_id": String(runID), "shard": options.shard, "dry_run": String(options.dryRun),
                                       "as_of": ISO8601DateFormatter().string(from: options.asOf)])
        let cutoff = Date().addingTimeInterval(-Double(options.olderThan))
        let reader = DueUserReader(connection: try connect("reader"), cutoff: cutoff, shardIndex: options.shardIndex,
                                   shardCount: options.shardCount, limit: options.limit)
        return try execute(runID: runID, kind: .nightly, store: store, subjectUserID: nil,
                           producerDatabaseSeconds: { reader.secondsWaited }) { emit in
            while true {
                let page = try reader.nextPage()
                if page.isEmpty { return }
                for user in page where !emit(user) { return }
            }
        }
    }

    // MARK: - One user

    /// `verify-user`: every receipt of one user, now, beside a nightly run if one is going.
    /// - Returns: nil when the user has no receipts and no entitlements (exit 65).
    public func verifyUser(_ userID: String) throws -> (outcome: Outcome, before: [EntitlementRow], after: [EntitlementRow],
                                                        corrections: [CorrectionRecord])? {
        let lockConnection = try connect("verify-user")
        try Self.requireMigrated(lockConnection)
        let rows = try lockConnection.query("""
            SELECT r.id, r.receipt_data, EXISTS (SELECT 1 FROM sandbox_testers t WHERE t.user_id = \(userID)) AS tester
            FROM receipts r WHERE r.user_id = \(userID) ORDER BY r.id
            """)
        let before = try UnitWriter.entitlements(of: userID, on: lockConnection)
        let anyEntitlement: Bool = try lockConnection.query(
            "SELECT EXISTS (SELECT 1 FROM entitlements WHERE user_id = \(userID)) AS present").first!.decode("present")
        if rows.isEmpty && !anyEntitlement { return nil }
        let work = UserWork(
            userID: userID,
            receipts: try rows.map { StoredReceipt(id: try $0.decode("id"), data: try $0.decode("receipt_data")) },
            isSandboxTester: try rows.first?.decode("tester") ?? false)

        let store = RunStore(connection: lockConnection)
        let runID = try store.start(kind: .user, options: options, subjectUserID: userID)
        log.log(.info, "run.started", ["run_id": String(runID), "kind": "user", "dry_run": String(options.dryRun)])
        let outcome = try execute(runID: runID, kind: .user, store: store, subjectUserID: userID) { emit in
            if !work.receipts.isEmpty { _ = emit(work) }
        }
        let after = try UnitWriter.entitlements(of: userID, on: lockConnection)
        let corrections = try lockConnection.query("""
            SELECT entitlement, action, reason, before_active, before_expires_at, after_active, after_expires_at,
                   product_id, original_transaction_id
            FROM recon_corrections WHERE run_id = \(runID) ORDER BY entitlement
            """).map { row in
            CorrectionRecord(entitlement: try row.decode("entitlement"), action: try row.decode("action"),
                             reason: try row.decode("reason"), beforeActive: try row.decode("before_active"),
                             beforeExpiresAt: try row.decode("before_expires_at"), afterActive: try row.decode("after_active"),
                             afterExpiresAt: try row.decode("after_expires_at"), productID: try row.decode("product_id"),
                             originalTransactionID: try row.decode("original_transaction_id"))
        }
        return (outcome, before, after, corrections)
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
