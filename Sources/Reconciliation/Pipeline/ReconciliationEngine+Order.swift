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
    /// exactly what a customer writes to support about.
    public func orderHolders(of transactions: [SignedTransaction]) throws -> [String] {
        let ids = Set(transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
        guard !ids.isEmpty else { return [] }
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
        guard recorded.isEmpty, let serverAPI = backend as? ServerAPIBackend else { return recorded }
        let earliest = transactions.compactMap { $0.originalPurchaseDate ?? $0.purchaseDate }.min() ?? Date()
        return try Self.storedHolders(
            of: ids, since: earliest.addingTimeInterval(-86_400), on: connection, namedIDs: serverAPI.namedIDs)
    }

    /// The users of the receipts stored since `since` that name one of `ids`, read a page at a time.
    static func storedHolders(
        of ids: Set<String>, since: Date, on connection: PostgresConnection,
        namedIDs: (StoredReceipt) -> Set<String>
    ) throws -> [String] {
        var users = Set<String>()
        var last: Int64 = 0
        while true {
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
            if rows.count < 500 { return users.sorted() }
        }
    }
}

extension ServerAPIBackend {
    /// The transaction ids `row` names (a JWS's transaction and original transaction id, an app
    /// receipt's in-app ones), read locally whether or not they are believed: only to find whose row
    /// holds an order's transaction. Apple's verified answer decides everything else.
    func namedIDs(_ row: StoredReceipt) -> Set<String> {
        let purchases: [Purchase]
        var ids: Set<String> = []
        switch StoredRowKey.read(row, verifier: signedData, receiptSignatures: receiptSignatures, context: context) {
        case .ask(let question):
            purchases = question.claimed
            ids.formUnion(question.ids)
        case .decided(let answer):
            purchases = answer.receipt.purchases
        }
        return ids.union(purchases.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
    }
}
