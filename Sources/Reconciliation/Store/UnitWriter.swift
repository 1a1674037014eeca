import AppStoreReceipts
import Foundation
import Postgres

/// Writes one user's unit of work in one transaction, under a transaction-scoped advisory lock on the
/// user, so that the nightly run and `verify-user` never interleave their writes for one user and a
/// crash leaves each user either wholly done or untouched (CONTRACT §6).
///
/// Corrections are planned inside the transaction, from the entitlement rows as they are at that
/// moment (`plan`), which makes a redone user harmless: a second pass finds nothing to correct.
///
/// Threading: owns its connection; use it from one thread.
public final class UnitWriter {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    public static func userLockKey(_ userID: String) -> AdvisoryLockKey {
        AdvisoryLockKey(name: "receipt-recon:user:\(userID)")
    }

    /// What the rules need from the database, read under the user's lock.
    public struct UserState: Sendable {
        /// Every row of the user, whatever its `source`: the planner needs the others to know which
        /// entitlements it must leave alone (CONTRACT §5).
        public var entitlements: [EntitlementRow]
        /// Transactions the job last saw refunded (`recon_transactions.cancelled_at` set).
        public var previouslyRefunded: Set<String>
    }

    /// What to write: produced by `plan` from the user's state.
    public struct UnitPlan: Sendable {
        public var results: [ResultRecord] = []
        public var transactions: [TransactionRecord] = []
        public var flags: [FlagRecord] = []
        public var corrections: [CorrectionRecord] = []
    }

    /// Runs one unit: locks the user, reads its state, asks `plan` what to write, writes it.
    /// - Parameters:
    ///   - dryRun: write results, flags and corrections (`applied = false`) only (CONTRACT §6).
    ///   - otidsForScan: original transaction ids of this user's receipts, recorded for the run's
    ///     end-of-run `shared_transaction` scan.
    /// - Returns: the plan as written.
    @discardableResult
    public func write(
        runID: Int64,
        userID: String,
        dryRun: Bool,
        verifiedAt: Date,
        sharedScan: [(receiptID: Int64, originalTransactionID: String)],
        plan: (UserState) throws -> UnitPlan
    ) throws -> UnitPlan {
        try connection.transaction {
            try connection.advisoryTransactionLock(Self.userLockKey(userID))
            let state = try readState(userID: userID)
            let unit = try plan(state)
            try writeResults(unit.results, runID: runID, userID: userID, dryRun: dryRun, verifiedAt: verifiedAt)
            if !dryRun { try writeTransactions(unit.transactions, runID: runID, userID: userID) }
            try writeFlags(unit.flags, runID: runID, userID: userID)
            try writeCorrections(unit.corrections, runID: runID, userID: userID, dryRun: dryRun)
            try writeSharedScan(sharedScan, runID: runID, userID: userID)
            return unit
        }
    }

    func readState(userID: String) throws -> UserState {
        let entitlements = try Self.entitlements(of: userID, on: connection, lock: true)
        let refunded: [String] = try connection.query("""
            SELECT transaction_id FROM recon_transactions WHERE user_id = \(userID) AND cancelled_at IS NOT NULL
            """).map { try $0.decode("transaction_id") }
        return UserState(entitlements: entitlements, previouslyRefunded: Set(refunded))
    }

    /// The user's `entitlements` rows, every source, in entitlement order; `lock` takes them FOR UPDATE.
    public static func entitlements(of userID: String, on connection: PostgresConnection, lock: Bool = false) throws
        -> [EntitlementRow] {
        try connection.query("""
            SELECT entitlement, active, expires_at, product_id, original_transaction_id, source
            FROM entitlements WHERE user_id = \(userID) ORDER BY entitlement \(unescaped: lock ? "FOR UPDATE" : "")
            """).map { row in
            EntitlementRow(entitlement: try row.decode("entitlement"), active: try row.decode("active"),
                           expiresAt: try row.decode("expires_at"), productID: try row.decode("product_id"),
                           originalTransactionID: try row.decode("original_transaction_id"), source: try row.decode("source"))
        }
    }

    private func writeResults(_ results: [ResultRecord], runID: Int64, userID: String, dryRun: Bool, verifiedAt: Date) throws {
        for result in results {
            try connection.execute("""
                INSERT INTO recon_results (run_id, receipt_id, user_id, outcome, apple_status, environment, attempts,
                                           verified_at, detail)
                VALUES (\(runID), \(result.receiptID), \(userID), \(result.outcome), \(result.appleStatus),
                        \(result.environment?.rawValue), \(result.attempts), \(verifiedAt), \(result.detail))
                ON CONFLICT (run_id, receipt_id) DO UPDATE SET outcome = EXCLUDED.outcome,
                    apple_status = EXCLUDED.apple_status, environment = EXCLUDED.environment,
                    attempts = EXCLUDED.attempts, verified_at = EXCLUDED.verified_at, detail = EXCLUDED.detail
                """)
            guard !dryRun else { continue }
            try connection.execute("""
                INSERT INTO recon_receipt_state (receipt_id, last_verified_at, last_outcome, last_apple_status,
                                                 last_environment, last_run_id, bundle_id, first_verified_at)
                VALUES (\(result.receiptID), \(verifiedAt), \(result.outcome), \(result.appleStatus),
                        \(result.environment?.rawValue), \(runID), \(result.bundleID), \(verifiedAt))
                ON CONFLICT (receipt_id) DO UPDATE SET last_verified_at = EXCLUDED.last_verified_at,
                    last_outcome = EXCLUDED.last_outcome, last_apple_status = EXCLUDED.last_apple_status,
                    last_environment = EXCLUDED.last_environment, last_run_id = EXCLUDED.last_run_id,
                    bundle_id = coalesce(EXCLUDED.bundle_id, recon_receipt_state.bundle_id)
                """)
        }
    }

    private func writeTransactions(_ transactions: [TransactionRecord], runID: Int64, userID: String) throws {
        for t in transactions {
            try connection.execute("""
                INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id, receipt_id,
                    environment, purchased_at, original_purchased_at, expires_at, cancelled_at, cancellation_reason,
                    is_trial, is_intro_offer, is_upgraded, ownership_type, quantity, web_order_line_item_id,
                    first_run_id, last_run_id, updated_at)
                VALUES (\(t.transactionID), \(t.originalTransactionID), \(t.productID), \(userID), \(t.receiptID),
                    \(t.environment?.rawValue), \(t.purchasedAt), \(t.originalPurchasedAt), \(t.expiresAt), \(t.cancelledAt),
                    \(t.cancellationReason), \(t.isTrial), \(t.isIntroOffer), \(t.isUpgraded), \(t.ownershipType),
                    \(t.quantity), \(t.webOrderLineItemID), \(runID), \(runID), now())
                ON CONFLICT (transaction_id) DO UPDATE SET
                    original_transaction_id = EXCLUDED.original_transaction_id, product_id = EXCLUDED.product_id,
                    user_id = EXCLUDED.user_id, receipt_id = EXCLUDED.receipt_id, environment = EXCLUDED.environment,
                    purchased_at = EXCLUDED.purchased_at, original_purchased_at = EXCLUDED.original_purchased_at,
                    expires_at = EXCLUDED.expires_at, cancelled_at = EXCLUDED.cancelled_at,
                    cancellation_reason = EXCLUDED.cancellation_reason, is_trial = EXCLUDED.is_trial,
                    is_intro_offer = EXCLUDED.is_intro_offer, is_upgraded = EXCLUDED.is_upgraded,
                    ownership_type = EXCLUDED.ownership_type, quantity = EXCLUDED.quantity,
                    web_order_line_item_id = EXCLUDED.web_order_line_item_id, last_run_id = EXCLUDED.last_run_id,
                    updated_at = now()
                """)
        }
    }

    private func writeFlags(_ flags: [FlagRecord], runID: Int64, userID: String) throws {
        for flag in flags {
            try connection.execute("""
                INSERT INTO recon_flags (run_id, receipt_id, user_id, kind, detail)
                VALUES (\(runID), \(flag.receiptID), \(userID), \(flag.kind), \(flag.detail))
                ON CONFLICT DO NOTHING
                """)
        }
    }

    private func writeCorrections(_ corrections: [CorrectionRecord], runID: Int64, userID: String, dryRun: Bool) throws {
        for c in corrections {
            try connection.execute("""
                INSERT INTO recon_corrections (run_id, user_id, entitlement, action, reason, before_active,
                    before_expires_at, after_active, after_expires_at, product_id, original_transaction_id, applied)
                VALUES (\(runID), \(userID), \(c.entitlement), \(c.action), \(c.reason), \(c.beforeActive),
                    \(c.beforeExpiresAt), \(c.afterActive), \(c.afterExpiresAt), \(c.productID),
                    \(c.originalTransactionID), \(!dryRun))
                """)
            guard !dryRun else { continue }
            if c.action == "revoke" {
                // A revoke keeps the row's expiry and product: only access changes.
                try connection.execute("""
                    UPDATE entitlements SET active = false, updated_at = now()
                    WHERE user_id = \(userID) AND entitlement = \(c.entitlement) AND source = 'app_store'
                    """)
            } else {
                try connection.execute("""
                    INSERT INTO entitlements (user_id, entitlement, active, expires_at, product_id,
                                              original_transaction_id, source, updated_at)
                    VALUES (\(userID), \(c.entitlement), true, \(c.afterExpiresAt), \(c.productID),
                            \(c.originalTransactionID), 'app_store', now())
                    ON CONFLICT (user_id, entitlement) DO UPDATE SET active = true, expires_at = EXCLUDED.expires_at,
                        product_id = EXCLUDED.product_id, original_transaction_id = EXCLUDED.original_transaction_id,
                        updated_at = now()
                    WHERE entitlements.source = 'app_store'
                    """)
            }
        }
    }

    private func writeSharedScan(_ rows: [(receiptID: Int64, originalTransactionID: String)], runID: Int64, userID: String) throws {
        for row in rows {
            try connection.execute("""
                INSERT INTO recon_run_transactions (run_id, user_id, receipt_id, original_transaction_id)
                VALUES (\(runID), \(userID), \(row.receiptID), \(row.originalTransactionID))
                ON CONFLICT DO NOTHING
                """)
        }
    }
}
