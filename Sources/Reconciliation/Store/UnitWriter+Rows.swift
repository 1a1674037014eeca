import AppStoreReceipts
import Foundation
import Postgres
import ReconSchema

/// The rows of a batch, a statement per table (`UnitWriter.write`).
///
/// Each statement's columns are filled straight from the plans (`PostgresBinaryArrayColumn`;
/// `PostgresArrayColumn` for numerics): no intermediate row arrays, and no boxed value or String per
/// cell. A batch writes thousands of cells, and rows of `any PostgresEncodable` cost a noticeable
/// share of the job's CPU (docs/benchmarks.md).
extension UnitWriter {
    /// Where one row of a plan's records is: `users[user].plan.<records>[index]`.
    typealias RecordIndex = (user: Int, index: Int)

    func writeResults(_ users: [(userID: String, plan: UnitPlan)], contexts: [RowContext], dryRun: Bool) throws {
        let planned = users.map { $0.plan.results }
        let kept = Self.lastPerKey(Self.recordIndices(users) { $0.results.count }) {
            planned[$0.user][$0.index].receiptID
        }
        let rows = BatchRows(records: planned, contexts: contexts, positions: kept)
        try JobTables.results.insert(rows, on: connection)
        guard !dryRun else { return }
        try JobTables.receiptState.insert(rows, on: connection)
    }

    func writeFlags(_ users: [(userID: String, plan: UnitPlan)], contexts: [RowContext]) throws {
        let rows = BatchRows(
            records: users.map { $0.plan.flags }, contexts: contexts,
            positions: Self.recordIndices(users) { $0.flags.count })
        try JobTables.flags.insert(rows, on: connection)
    }

    func writeCorrections(_ users: [(userID: String, plan: UnitPlan)], contexts: [RowContext], dryRun: Bool) throws {
        let all = Self.recordIndices(users) { $0.corrections.count }
        guard !all.isEmpty else { return }
        func correction(_ at: RecordIndex) -> CorrectionRecord { users[at.user].plan.corrections[at.index] }
        try JobTables.corrections.insert(
            BatchRows(records: users.map { $0.plan.corrections }, contexts: contexts, positions: all), on: connection)
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
        var grantUserIDs = PostgresBinaryArrayColumn<String>("user_id", expectedCount: granted.count)
        var grantEntitlements = PostgresBinaryArrayColumn<String>("entitlement", expectedCount: granted.count)
        var actives = PostgresBinaryArrayColumn<Bool>("active", expectedCount: granted.count)
        var expiresAts = PostgresBinaryArrayColumn<Date>("expires_at", expectedCount: granted.count)
        var grantProductIDs = PostgresBinaryArrayColumn<String>("product_id", expectedCount: granted.count)
        var grantOriginalIDs = PostgresBinaryArrayColumn<String>(
            "original_transaction_id", expectedCount: granted.count)
        var sources = PostgresBinaryArrayColumn<String>("source", expectedCount: granted.count)
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

    func writeSharedScan(_ users: [(userID: String, plan: UnitPlan)], contexts: [RowContext]) throws {
        let rows = BatchRows(
            records: users.map { $0.plan.sharedScan }, contexts: contexts,
            positions: Self.recordIndices(users) { $0.sharedScan.count })
        try JobTables.runTransactions.insert(rows, on: connection)
    }

    /// Each user's `RowContext` in the batch, in batch order.
    static func contexts(_ users: [(userID: String, plan: UnitPlan)], runID: Int64, dryRun: Bool, verifiedAt: Date)
        -> [RowContext]
    {
        users.map { RowContext(runID: runID, userID: $0.userID, verifiedAt: verifiedAt, dryRun: dryRun) }
    }

    /// Every record of the users' plans, in batch order then plan order.
    ///
    /// Callers pass closures (`{ $0.flags.count }`, `users.map { $0.plan.flags }`), not key paths: a key
    /// path through a tuple or to a computed property is applied by the runtime (`swift_getAtKeyPath`),
    /// which costs far more than the closure, twice per user per table (docs/benchmarks.md).
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
