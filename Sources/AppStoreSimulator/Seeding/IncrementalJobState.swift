import AppStoreReceipts
import Foundation
import Postgres

/// The job's own tables as a correct previous run at `since` left them, for an incremental world: each
/// receipt and user verified `k` whole days before `since` (the user's `k` of `IncrementalWorld.plan`:
/// nightly cohorts, as a steady sweep leaves them), and `recon_transactions` holding Apple's view of each
/// user's account at `since` (source `server_api`). Rows only; `WorldSeeder+Store` writes them.
///
/// Left out (the StoreKit 2 rows of an incremental world need none of it): `recon_results`,
/// `recon_flags`, `recon_corrections` of that run, `recon_notifications` (a cursor at `since` means the
/// previous run read everything before it), and the finance columns Apple's offer data would fill.
struct IncrementalJobState {
    var receiptStates: [[any PostgresEncodable]] = []
    var userStates: [[any PostgresEncodable]] = []
    var transactions: [[any PostgresEncodable]] = []
    /// Users whose change in `(since, asOf]` Apple notified (delivered or not), and how many of them the
    /// app missed; the forced notifications' users count like any other.
    var changedUsers = 0
    var missedChanges = 0
    /// Users a notification signed in `(since, asOf]` names, and notifications there that name no user.
    var notifiedUsers = 0
    var unmatchedNotifications = 0

    static let receiptStateColumns = [
        "receipt_id", "last_verified_at", "last_outcome", "last_environment", "last_run_id", "bundle_id",
        "first_verified_at",
    ]
    static let userStateColumns = ["user_id", "verified_at", "last_run_id"]
    static let transactionColumns = [
        "transaction_id", "original_transaction_id", "product_id", "user_id", "receipt_id", "environment",
        "purchased_at", "original_purchased_at", "expires_at", "cancelled_at", "cancellation_reason", "is_trial",
        "is_intro_offer", "is_upgraded", "ownership_type", "quantity", "web_order_line_item_id", "first_run_id",
        "last_run_id", "updated_at", "price", "currency", "storefront", "transaction_reason", "revocation_type",
        "source",
    ]

    /// Adds the rows of `unit` (its receipts' ids in `receiptIDs`, per user and row).
    mutating func add(
        _ unit: WorldUnit, receiptIDs: [[Int64]], world: SimulatedWorld, incremental: IncrementalWorld, runID: Int64
    ) {
        let since = incremental.sinceMs
        var notified = Set<Int>()
        for notification in world.notifications(of: unit) where notification.signedMs > since {
            guard let account = notification.account else { continue }
            if account == WorldNotification.orphanAccount {
                unmatchedNotifications += 1
            } else {
                notified.insert(account)
            }
        }
        // One account per user, opened in user order.
        notifiedUsers += notified.count
        for (position, user) in unit.users.enumerated() {
            let plan = incremental.plan(seed: world.parameters.seed, userIndex: user.index)
            if plan.change != nil {
                changedUsers += 1
                if plan.missed { missedChanges += 1 }
            }
            // A new subscriber's row came after the previous run: no state of it yet.
            if plan.change == .newPurchase { continue }
            let verified = WorldSeeder.date(
                since - Int64(plan.verifiedDaysBeforeSince) * SubscriptionClock.millisecondsPerDay)
            userStates.append([user.id, verified, runID])
            for (row, receipt) in user.receipts.enumerated() {
                let receiptID = receiptIDs[position][row]
                guard let slot = unit.receipts[receipt.slot].account else { continue }
                let owner = unit.accounts[slot]
                receiptStates.append([
                    receiptID, verified, "valid", owner.environment.rawValue, runID, owner.bundleID, verified,
                ])
                for transaction in owner.transactions(purchasedBy: since) {
                    transactions.append(Self.transactionRow(transaction, owner, user.id, receiptID, since, runID))
                }
            }
        }
    }

    /// Apple's view of `transaction` at `since`, as the Server API backend records it.
    private static func transactionRow(
        _ transaction: WorldTransaction, _ owner: WorldAccount, _ userID: String, _ receiptID: Int64, _ since: Int64,
        _ runID: Int64
    ) -> [any PostgresEncodable] {
        let date = WorldSeeder.date
        let view = transaction.view(at: since)
        let price = WorldUnit.priceMilliunits(of: transaction)
        let first = transaction.transactionID == transaction.originalTransactionID
        return [
            transaction.transactionID, transaction.originalTransactionID, transaction.productID, userID, receiptID,
            owner.environment.rawValue, date(transaction.purchaseMs), date(transaction.originalPurchaseMs),
            transaction.expiresMs.map(date), view.cancellationMs.map(date), view.cancellationReason,
            transaction.isTrialPeriod, transaction.isInIntroOfferPeriod, view.isUpgraded,
            transaction.ownership.rawValue, transaction.quantity, transaction.webOrderLineItemID, runID, runID,
            date(since), String(price / 1000) + "." + String(String(1000 + price % 1000).dropFirst()), "USD", "USA",
            first ? "PURCHASE" : "RENEWAL", view.revocationType, "server_api",
        ]
    }
}
