import AppStoreReceipts
import Foundation
import Postgres

/// Writes users' units of work, a batch of users per transaction, under a transaction-scoped
/// advisory lock per user, so that the nightly run and `verify-user` never interleave their writes
/// for one user and a crash leaves each user either wholly done or untouched (CONTRACT §6).
///
/// Corrections are planned inside the transaction, from the entitlement rows as they are at that
/// moment (`Unit.plan`), which makes a redone user harmless: a second pass finds nothing to correct.
///
/// Why batches: with PostgreSQL's default durability every COMMIT waits for a WAL flush, and one
/// statement per row is one round trip per row. A batch is one COMMIT and a dozen multi-row
/// statements for up to `maximumBatch` users, whatever their number of receipts and transactions.
///
/// Threading: owns its connection; use it from one thread.
public final class UnitWriter {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Seconds this writer waited on PostgreSQL.
    public var secondsWaited: Double { connection.secondsWaited }

    /// Users per transaction: enough to make commits rare at a thousand receipts a second, few
    /// enough that `verify-user` waiting on one of them waits a fraction of a second.
    public static let maximumBatch = 128

    /// How long a writer waits for more users after the first before it writes: at a few hundred
    /// users a second, tens of users per COMMIT instead of nearly one COMMIT per user, for at most this
    /// much added delay per user. Each batch costs about ten statements whatever its size, so fewer,
    /// larger batches cost less CPU.
    /// A run with no more work does not wait (the queue is closed).
    public static let gatherTime = Duration.milliseconds(250)

    public static func userLockKey(_ userID: String) -> AdvisoryLockKey {
        AdvisoryLockKey(name: "receipt-recon:user:\(userID)")
    }

    /// One user to write.
    public struct Unit {
        public var userID: String
        /// Apple's answer settles the user: every stored row was answered and none is left `unverified`
        /// with a transient cause. Only then does the write mark the notifications naming the user as
        /// handled and count the user as verified whole (`recon_user_state`), so that a user asked
        /// about in part is asked again: notified again, or at the head of the sweep.
        public var conclusive: Bool
        /// Asked inside the transaction, in batch order, with the user's locked state.
        public var choose: (UserState) throws -> Choice

        public init(userID: String, conclusive: Bool = false, choose: @escaping (UserState) throws -> Choice) {
            self.userID = userID
            self.conclusive = conclusive
            self.choose = choose
        }

        /// A unit whose `plan` is written; nil leaves this user and every later one in the batch unwritten.
        public init(userID: String, conclusive: Bool = false, plan: @escaping (UserState) throws -> UnitPlan?) {
            self.init(userID: userID, conclusive: conclusive) { state in try plan(state).map(Choice.write) ?? .stop }
        }
    }

    /// What a unit asks the transaction to do with its user.
    public enum Choice {
        case write(UnitPlan)
        /// Not this user (held for a judge), the batch's others still.
        case skip
        /// Neither this user nor any later one of the batch (the run stopped meanwhile).
        case stop
    }

    /// Writes `units` in one transaction: locks the users, reads their state, asks each unit for
    /// its plan, writes every row with a few multi-row statements, commits.
    /// - Parameter dryRun: write results, flags and corrections (`applied = false`) only (CONTRACT §6):
    ///   no notification is marked handled and no user counts as verified whole.
    /// - Returns: the users written with their plans, in batch order.
    public func write(runID: Int64, dryRun: Bool, verifiedAt: Date, units: [Unit]) throws
        -> [(userID: String, plan: UnitPlan)]
    {
        guard !units.isEmpty else { return [] }
        return try connection.transaction {
            let userIDs = units.map(\.userID)
            try lockUsers(userIDs)
            let states = try readStates(userIDs)
            var written: [(userID: String, plan: UnitPlan)] = []
            var whole: [(userID: String, conclusive: Bool)] = []
            choosing: for unit in units {
                switch try unit.choose(states[unit.userID] ?? UserState()) {
                case .write(let plan):
                    written.append((unit.userID, plan))
                    whole.append((unit.userID, unit.conclusive))
                case .skip: continue
                case .stop: break choosing
                }
            }
            let contexts = Self.contexts(written, runID: runID, dryRun: dryRun, verifiedAt: verifiedAt)
            try writeResults(written, contexts: contexts, dryRun: dryRun)
            if !dryRun {
                try writeTransactions(written, contexts: contexts, runID: runID)
                try writeVerifiedWhole(whole, runID: runID, verifiedAt: verifiedAt)
            }
            try writeFlags(written, contexts: contexts)
            try writeCorrections(written, contexts: contexts, dryRun: dryRun)
            try writeSharedScan(written, contexts: contexts)
            return written
        }
    }

    /// Takes every user's lock, in key order, so two writers can never wait on each other in a cycle.
    private func lockUsers(_ userIDs: [String]) throws {
        let keys = Set(userIDs.map { Self.userLockKey($0).value }).sorted().map(String.init)
        try connection.execute(
            """
            SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest(\(keys)::bigint[]) AS k ORDER BY 1) s
            """)
    }

    private func readStates(_ userIDs: [String]) throws -> [String: UserState] {
        let users = Set(userIDs).sorted()
        var states: [String: UserState] = [:]
        for row in try connection.query(
            """
            SELECT user_id, entitlement, active, expires_at, product_id, original_transaction_id, source, updated_at
            FROM entitlements WHERE user_id = ANY(\(users))
            ORDER BY user_id, entitlement FOR UPDATE
            """)
        {
            states[try row.decode("user_id"), default: UserState()].entitlements.append(try Self.entitlementRow(row))
        }
        for row in try connection.query(
            """
            SELECT user_id, transaction_id FROM recon_transactions
            WHERE user_id = ANY(\(users)) AND cancelled_at IS NOT NULL
            """)
        {
            states[try row.decode("user_id"), default: UserState()].previouslyRefunded.insert(
                try row.decode("transaction_id"))
        }
        return states
    }

    /// The user's `entitlements` rows, every source, in entitlement order; `lock` takes them FOR UPDATE.
    public static func entitlements(of userID: String, on connection: PostgresConnection, lock: Bool = false) throws
        -> [EntitlementRow]
    {
        try connection.query(
            """
            SELECT entitlement, active, expires_at, product_id, original_transaction_id, source, updated_at
            FROM entitlements WHERE user_id = \(userID) ORDER BY entitlement \(unescaped: lock ? "FOR UPDATE" : "")
            """
        ).map(entitlementRow)
    }

    private static func entitlementRow(_ row: PostgresRow) throws -> EntitlementRow {
        EntitlementRow(
            entitlement: try row.decode("entitlement"), active: try row.decode("active"),
            expiresAt: try row.decode("expires_at"), productID: try row.decode("product_id"),
            originalTransactionID: try row.decode("original_transaction_id"), source: try row.decode("source"),
            updatedAt: try row.decode("updated_at"))
    }

    /// The last element per key, in first-seen order: `ON CONFLICT DO UPDATE` refuses to touch one
    /// row twice in a statement, and the last one is what row-by-row writes would have left.
    static func lastPerKey<Element, Key: Hashable>(_ elements: [Element], key: (Element) -> Key) -> [Element] {
        var position: [Key: Int] = [:]
        var kept: [Element] = []
        for element in elements {
            let k = key(element)
            if let index = position[k] {
                kept[index] = element
            } else {
                position[k] = kept.count
                kept.append(element)
            }
        }
        return kept
    }
}
