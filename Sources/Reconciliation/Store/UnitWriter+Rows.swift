import AppStoreReceipts
import Foundation
import Postgres
import ReconSchema

/// The rows of a batch, a statement per table (`UnitWriter.write`).
///
/// Each statement's columns are filled straight from the plans (`PostgresArrayColumn`): no
/// intermediate row arrays, and no boxed value or String per cell. A batch writes thousands of
/// cells, and rows of `any PostgresEncodable` cost a noticeable share of the job's CPU
/// (docs/benchmarks.md).
extension UnitWriter {
    /// Where one row of a plan's records is: `users[user].plan.<records>[index]`.
    typealias RecordIndex = (user: Int, index: Int)

    func writeResults(_ users: [(userID: String, plan: UnitPlan)], runID: Int64, dryRun: Bool, verifiedAt: Date) throws
    {
        let planned = users.map(\.plan.results)
        let userIDList = users.map(\.userID)
        let kept = Self.lastPerKey(Self.recordIndices(users, \.results.count)) { planned[$0.user][$0.index].receiptID }
        var runIDs = PostgresArrayColumn<Int64>("run_id", expectedCount: kept.count)
        var receiptIDs = PostgresArrayColumn<Int64>("receipt_id", expectedCount: kept.count)
        var userIDs = PostgresArrayColumn<String>("user_id", expectedCount: kept.count)
        var outcomes = PostgresArrayColumn<String>("outcome", expectedCount: kept.count)
        var statuses = PostgresArrayColumn<Int>("apple_status", expectedCount: kept.count)
        var environments = PostgresArrayColumn<String>("environment", expectedCount: kept.count)
        var attempts = PostgresArrayColumn<Int>("attempts", expectedCount: kept.count)
        var verifiedAts = PostgresArrayColumn<Date>("verified_at", expectedCount: kept.count)
        var details = PostgresArrayColumn<String>("detail", expectedCount: kept.count)
        for (user, index) in kept {
            let r = planned[user][index]
            runIDs.append(runID)
            receiptIDs.append(r.receiptID)
            userIDs.append(userIDList[user])
            outcomes.append(r.outcome.rawValue)
            statuses.append(r.appleStatus)
            environments.append(r.environment?.rawValue)
            attempts.append(r.attempts)
            verifiedAts.append(verifiedAt)
            details.append(r.detail)
        }
        try connection.insert(
            into: "recon_results",
            columns: [runIDs, receiptIDs, userIDs, outcomes, statuses, environments, attempts, verifiedAts, details],
            suffix: """
                ON CONFLICT (run_id, receipt_id) DO UPDATE SET outcome = EXCLUDED.outcome,
                    apple_status = EXCLUDED.apple_status, environment = EXCLUDED.environment,
                    attempts = EXCLUDED.attempts, verified_at = EXCLUDED.verified_at, detail = EXCLUDED.detail
                """)
        guard !dryRun else { return }
        var lastVerifiedAts = PostgresArrayColumn<Date>("last_verified_at", expectedCount: kept.count)
        var lastOutcomes = PostgresArrayColumn<String>("last_outcome", expectedCount: kept.count)
        var lastStatuses = PostgresArrayColumn<Int>("last_apple_status", expectedCount: kept.count)
        var lastEnvironments = PostgresArrayColumn<String>("last_environment", expectedCount: kept.count)
        var lastRunIDs = PostgresArrayColumn<Int64>("last_run_id", expectedCount: kept.count)
        var bundleIDs = PostgresArrayColumn<String>("bundle_id", expectedCount: kept.count)
        var firstVerifiedAts = PostgresArrayColumn<Date>("first_verified_at", expectedCount: kept.count)
        for (user, index) in kept {
            let r = planned[user][index]
            lastVerifiedAts.append(verifiedAt)
            lastOutcomes.append(r.outcome.rawValue)
            lastStatuses.append(r.appleStatus)
            lastEnvironments.append(r.environment?.rawValue)
            lastRunIDs.append(runID)
            bundleIDs.append(r.bundleID)
            firstVerifiedAts.append(verifiedAt)
        }
        try connection.insert(
            into: "recon_receipt_state",
            columns: [
                receiptIDs, lastVerifiedAts, lastOutcomes, lastStatuses, lastEnvironments, lastRunIDs, bundleIDs,
                firstVerifiedAts,
            ],
            suffix: """
                ON CONFLICT (receipt_id) DO UPDATE SET last_verified_at = EXCLUDED.last_verified_at,
                    last_outcome = EXCLUDED.last_outcome, last_apple_status = EXCLUDED.last_apple_status,
                    last_environment = EXCLUDED.last_environment, last_run_id = EXCLUDED.last_run_id,
                    bundle_id = coalesce(EXCLUDED.bundle_id, recon_receipt_state.bundle_id)
                """)
    }

    func writeFlags(_ users: [(userID: String, plan: UnitPlan)], runID: Int64) throws {
        let n = users.reduce(0) { $0 + $1.plan.flags.count }
        var runIDs = PostgresArrayColumn<Int64>("run_id", expectedCount: n)
        var receiptIDs = PostgresArrayColumn<Int64>("receipt_id", expectedCount: n)
        var userIDs = PostgresArrayColumn<String>("user_id", expectedCount: n)
        var kinds = PostgresArrayColumn<String>("kind", expectedCount: n)
        var details = PostgresArrayColumn<String>("detail", expectedCount: n)
        var evidence = PostgresArrayColumn<PostgresJSON>("evidence", expectedCount: n)
        let encoder = JSONEncoder.sorted
        for user in users {
            for flag in user.plan.flags {
                runIDs.append(runID)
                receiptIDs.append(flag.receiptID)
                userIDs.append(user.userID)
                kinds.append(flag.kind.rawValue)
                details.append(flag.detail)
                evidence.append(flag.evidence?.storedJSON(encoder))
            }
        }
        try connection.insert(
            into: "recon_flags", columns: [runIDs, receiptIDs, userIDs, kinds, details, evidence],
            suffix: "ON CONFLICT DO NOTHING")
    }

    func writeCorrections(_ users: [(userID: String, plan: UnitPlan)], runID: Int64, dryRun: Bool) throws {
        let all = Self.recordIndices(users, \.corrections.count)
        guard !all.isEmpty else { return }
        func correction(_ at: RecordIndex) -> CorrectionRecord { users[at.user].plan.corrections[at.index] }
        var runIDs = PostgresArrayColumn<Int64>("run_id", expectedCount: all.count)
        var userIDs = PostgresArrayColumn<String>("user_id", expectedCount: all.count)
        var entitlements = PostgresArrayColumn<String>("entitlement", expectedCount: all.count)
        var actions = PostgresArrayColumn<String>("action", expectedCount: all.count)
        var reasons = PostgresArrayColumn<String>("reason", expectedCount: all.count)
        var beforeActives = PostgresArrayColumn<Bool>("before_active", expectedCount: all.count)
        var beforeExpiresAts = PostgresArrayColumn<Date>("before_expires_at", expectedCount: all.count)
        var afterActives = PostgresArrayColumn<Bool>("after_active", expectedCount: all.count)
        var afterExpiresAts = PostgresArrayColumn<Date>("after_expires_at", expectedCount: all.count)
        var productIDs = PostgresArrayColumn<String>("product_id", expectedCount: all.count)
        var originalIDs = PostgresArrayColumn<String>("original_transaction_id", expectedCount: all.count)
        var applied = PostgresArrayColumn<Bool>("applied", expectedCount: all.count)
        var evidence = PostgresArrayColumn<PostgresJSON>("evidence", expectedCount: all.count)
        let encoder = JSONEncoder.sorted
        for at in all {
            let c = correction(at)
            runIDs.append(runID)
            userIDs.append(users[at.user].userID)
            entitlements.append(c.entitlement)
            actions.append(c.action.rawValue)
            reasons.append(c.reason.rawValue)
            beforeActives.append(c.beforeActive)
            beforeExpiresAts.append(c.beforeExpiresAt)
            afterActives.append(c.afterActive)
            afterExpiresAts.append(c.afterExpiresAt)
            productIDs.append(c.productID)
            originalIDs.append(c.originalTransactionID)
            applied.append(!dryRun)
            evidence.append(c.evidence?.storedJSON(encoder))
        }
        try connection.insert(
            into: "recon_corrections",
            columns: [
                runIDs, userIDs, entitlements, actions, reasons, beforeActives, beforeExpiresAts, afterActives,
                afterExpiresAts, productIDs, originalIDs, applied, evidence,
            ])
        guard !dryRun else { return }
        let revokes = all.filter { correction($0).action == .revoke }
        if !revokes.isEmpty {
            // A revoke keeps the row's expiry and product: only access changes.
            try connection.execute(
                """
                UPDATE entitlements e SET active = false, updated_at = now()
                FROM unnest(\(revokes.map { users[$0.user].userID }), \(revokes.map { correction($0).entitlement }))
                    AS v(user_id, entitlement)
                WHERE e.user_id = v.user_id AND e.entitlement = v.entitlement AND e.source = 'app_store'
                """)
        }
        let granted = Self.lastPerKey(all.filter { correction($0).action != .revoke }) {
            "\(users[$0.user].userID)\u{0}\(correction($0).entitlement)"
        }
        var grantUserIDs = PostgresArrayColumn<String>("user_id", expectedCount: granted.count)
        var grantEntitlements = PostgresArrayColumn<String>("entitlement", expectedCount: granted.count)
        var actives = PostgresArrayColumn<Bool>("active", expectedCount: granted.count)
        var expiresAts = PostgresArrayColumn<Date>("expires_at", expectedCount: granted.count)
        var grantProductIDs = PostgresArrayColumn<String>("product_id", expectedCount: granted.count)
        var grantOriginalIDs = PostgresArrayColumn<String>("original_transaction_id", expectedCount: granted.count)
        var sources = PostgresArrayColumn<String>("source", expectedCount: granted.count)
        for at in granted {
            let c = correction(at)
            grantUserIDs.append(users[at.user].userID)
            grantEntitlements.append(c.entitlement)
            actives.append(true)
            expiresAts.append(c.afterExpiresAt)
            grantProductIDs.append(c.productID)
            grantOriginalIDs.append(c.originalTransactionID)
            sources.append("app_store")
        }
        try connection.insert(
            into: "entitlements",
            columns: [
                grantUserIDs, grantEntitlements, actives, expiresAts, grantProductIDs, grantOriginalIDs, sources,
            ],
            suffix: EntitlementUpsert.conflictClause)
    }

    func writeSharedScan(_ users: [(userID: String, plan: UnitPlan)], runID: Int64) throws {
        let n = users.reduce(0) { $0 + $1.plan.sharedScan.count }
        var runIDs = PostgresArrayColumn<Int64>("run_id", expectedCount: n)
        var userIDs = PostgresArrayColumn<String>("user_id", expectedCount: n)
        var receiptIDs = PostgresArrayColumn<Int64>("receipt_id", expectedCount: n)
        var originalIDs = PostgresArrayColumn<String>("original_transaction_id", expectedCount: n)
        for user in users {
            for entry in user.plan.sharedScan {
                runIDs.append(runID)
                userIDs.append(user.userID)
                receiptIDs.append(entry.receiptID)
                originalIDs.append(entry.originalTransactionID)
            }
        }
        try connection.insert(
            into: "recon_run_transactions", columns: [runIDs, userIDs, receiptIDs, originalIDs],
            suffix: "ON CONFLICT DO NOTHING")
    }

    /// Every record of the users' plans, in batch order then plan order.
    static func recordIndices(_ users: [(userID: String, plan: UnitPlan)], _ count: (UnitPlan) -> Int) -> [RecordIndex]
    {
        var indices: [RecordIndex] = []
        indices.reserveCapacity(users.reduce(0) { $0 + count($1.plan) })
        for (user, entry) in users.enumerated() {
            for index in 0..<count(entry.plan) { indices.append((user, index)) }
        }
        return indices
    }

    /// The positions `lastPerKey` keeps, in key order, without hashing: a sort by key (ties in
    /// input order), then the last of each run of equal keys.
    static func lastPerKeySorted<Key: Comparable>(keys: [Key]) -> [Int] {
        // One key comparison when `left < right`, or when `a` comes after `b`; two otherwise. (`!=`
        // then `<` compared the strings twice on every step where they differed.)
        let order = keys.indices.sorted { a, b in
            let (left, right) = (keys[a], keys[b])
            return left < right || (a < b && !(right < left))
        }
        var kept: [Int] = []
        kept.reserveCapacity(order.count)
        for (position, index) in order.enumerated()
        where position + 1 == order.count || keys[order[position + 1]] != keys[index] {
            kept.append(index)
        }
        return kept
    }
}
