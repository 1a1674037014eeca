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
    /// exactly what a customer writes to support about. The reading stops after `OrderHolders.scanLimit` rows
    /// (`searched` then says how far it went), so an old order costs support seconds, not an hour.
    public func orderHolders(of transactions: [SignedTransaction]) throws -> OrderHolders {
        let ids = Set(transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
        guard !ids.isEmpty else { return OrderHolders(users: []) }
        let connection = try connect("order lookup")
        try Self.requireMigrated(connection)
        let list = ids.sorted()
        let recorded = try OrderHolders.recordedUsers(of: list, on: connection)
        guard recorded.isEmpty, let serverAPI = backend as? ServerAPIBackend else {
            return OrderHolders(users: recorded)
        }
        let earliest = transactions.compactMap { $0.originalPurchaseDate ?? $0.purchaseDate }.min() ?? Date()
        return try OrderHolders.stored(
            of: ids, since: earliest.addingTimeInterval(-86_400), on: connection, limit: OrderHolders.scanLimit,
            namedIDs: serverAPI.namedIDs)
    }
}
