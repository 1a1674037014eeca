import AppStoreReceipts
import Dispatch
import Foundation
import Postgres
import Synchronization

/// `verify-user --order-id`: the order id a customer quotes from Apple's receipt email, asked of Look Up
/// Order ID, and the users whose stored rows hold the order's transactions. Each of them is then
/// verified by `verifyUser`, as `verify-user USER_ID` does.
extension ReconciliationEngine {
    /// Refuses a database this build has not migrated (78 with the way out) before Apple is asked anything,
    /// as `verify-user USER_ID` does.
    public func requireReadyDatabase() throws {
        try Self.requireMigrated(try connect("order lookup"))
    }

    /// Look Up Order ID for `orderID` on the run's driver: its rate per endpoint, the request budget every
    /// shard shares (never waited for, as for `verify-user`), 429's `Retry-After` and the retries. Not a
    /// run: no run row is written for the question itself.
    /// - Returns: nil when the backend is not the App Store Server API.
    public func lookUpOrder(_ orderID: String) -> OrderLookupResult? {
        guard let serverAPI = backend as? ServerAPIBackend else { return nil }
        let spent = Mutex<AppleLimitKey?>(nil)
        let result = Mutex<OrderLookupResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        // The answer continues on a queue of its own, never on the transport's thread or the global pool.
        let queue = DispatchQueue(label: "receipt-recon order lookup")
        let context = ExchangeContext(
            executor: WorkExecutor { queue.async(execute: $0) },
            isDraining: { spent.withLock { $0 != nil } },
            budgetSpent: { key in spent.withLock { $0 = $0 ?? key } })
        let lookup = serverAPI.client.orderLookup(
            orderID, bundleID: serverAPI.defaultBundleID, acceptedBundleIDs: serverAPI.context.acceptedBundleIDs,
            environment: serverAPI.context.servedEnvironment)
        driver.run(lookup, context: context) { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        let answer = result.withLock { $0 }!
        if case .found = answer { return answer }
        if let key = spent.withLock({ $0 }) {
            if let error = budget?.lastError {
                return .unverified(detail: "the request budget could not be counted: \(RunEnd.describe(error))")
            }
            let limit = budget?.limit(for: key.environment) ?? 0
            return .unverified(
                detail: BudgetFigures.spentForUserLine(limit: limit, key: key)
                    .replacingOccurrences(of: "the user was not verified", with: "the order was not looked up"))
        }
        return answer
    }

    /// The users whose stored rows hold one of `transactions`, by transaction id or original transaction
    /// id, in user id order: the transactions the job recorded from Apple's answers (`recon_transactions`),
    /// or, when none holds them, the receipts stored since the order's earliest original purchase (a day
    /// earlier, for clocks), each read locally for the ids it names: a purchase no run verified yet is
    /// exactly what a customer writes to support about. The reading stops after `orderScanLimit` rows
    /// (`searched` then says how far it went), so an old order costs support seconds, not an hour.
    public func orderHolders(of transactions: [SignedTransaction]) throws -> OrderHolders {
        let ids = Set(transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
        guard !ids.isEmpty else { return OrderHolders(users: []) }
        let connection = try connect("order lookup")
        try Self.requireMigrated(connection)
        let list = ids.sorted()
        let recorded = try connection.query(
            """
            SELECT DISTINCT user_id FROM recon_transactions
            WHERE transaction_id = ANY(\(list)) OR original_transaction_id = ANY(\(list))
            ORDER BY user_id
            """
        ).map { try $0.decode("user_id", as: String.self) }
        guard recorded.isEmpty, let serverAPI = backend as? ServerAPIBackend else {
            return OrderHolders(users: recorded)
        }
        let earliest = transactions.compactMap { $0.originalPurchaseDate ?? $0.purchaseDate }.min() ?? Date()
        return try Self.storedHolders(
            of: ids, since: earliest.addingTimeInterval(-86_400), on: connection, limit: Self.orderScanLimit,
            namedIDs: serverAPI.namedIDs)
    }

    /// The most stored receipts `orderHolders` reads for one order.
    static let orderScanLimit = 200_000

    /// The users of the receipts stored since `since` that name one of `ids`, read a page at a time, at
    /// most `limit` rows.
    static func storedHolders(
        of ids: Set<String>, since: Date, on connection: PostgresConnection, limit: Int,
        namedIDs: (StoredReceipt) -> Set<String>
    ) throws -> OrderHolders {
        var users = Set<String>()
        var last: Int64 = 0
        var read = 0
        while read < limit {
            let rows = try connection.query(
                """
                SELECT id, user_id, receipt_data FROM receipts
                WHERE created_at >= \(since) AND id > \(last) ORDER BY id LIMIT 500
                """)
            for row in rows {
                let receipt = StoredReceipt(id: try row.decode("id"), data: try row.decode("receipt_data"))
                last = receipt.id
                if !namedIDs(receipt).isDisjoint(with: ids) { users.insert(try row.decode("user_id")) }
            }
            read += rows.count
            if rows.count < 500 { return OrderHolders(users: users.sorted()) }
        }
        let from = ISO8601DateFormatter().string(from: since)
        return OrderHolders(
            users: users.sorted(),
            searched: "the recorded transactions and the first \(read) receipts stored since \(from) (receipt ids "
                + "up to \(last)); later ones were not read")
    }
}

/// Whose stored rows hold an order's transactions.
public struct OrderHolders: Sendable {
    /// In user id order.
    public var users: [String]
    /// nil when every place a holder can be was searched; else what was.
    public var searched: String?

    public init(users: [String], searched: String? = nil) {
        self.users = users
        self.searched = searched
    }
}
