import AppStoreReceipts
import Foundation

/// One user's truth: every entitlement Apple's answers say something about, at `as_of`.
///
/// CONTRACT §5, "A user's truth comes from all their receipts together", read as in
/// docs/reconciliation-rules.md ("Which transactions count", "Truth per entitlement").
public struct UserTruth: Hashable, Sendable {
    public var asOf: Date
    /// Sorted by entitlement name.
    public var entitlements: [EntitlementTruth]
    /// Whether any receipt of the run ended `unverified` (guard 1 of the corrections).
    public var hasUnverifiedReceipt: Bool

    public init(asOf: Date, entitlements: [EntitlementTruth] = [], hasUnverifiedReceipt: Bool = false) {
        self.asOf = asOf
        self.entitlements = entitlements.sorted { $0.entitlement < $1.entitlement }
        self.hasUnverifiedReceipt = hasUnverifiedReceipt
    }

    public subscript(entitlement: String) -> EntitlementTruth? {
        entitlements.first { $0.entitlement == entitlement }
    }

    /// Computes the truth from this run's results for the user's receipts.
    ///
    /// - Which transactions count: the union, deduplicated by `transaction_id`, over `valid`
    ///   receipts, plus `misrouted` ones under `--sandbox-policy flag` or for a sandbox tester
    ///   (`UserReceipt.standing`). Unknown products and consumables grant nothing.
    /// - Refunds: `cancellation_date` counts as never purchased unless `is_upgraded`; an upgraded
    ///   transaction grants nothing by itself (`EntitlementTransaction.isRefunded`).
    /// - `auto_renewable`: the latest `expires_date` wins; active while after `asOf`, else while
    ///   the winning chain's `grace_period_expires_date` is after `asOf` (expiry = grace end).
    /// - `non_consumable`: active, never expires. `non_renewing`: `purchase_date + duration`.
    ///   Products of different kinds naming one entitlement: the latest end wins (`.never` last).
    ///
    /// - Parameters:
    ///   - receipts: the user's receipts with this run's outcomes, in any order.
    ///   - catalog: `products`.
    ///   - sandboxPolicy: `--sandbox-policy`.
    ///   - isSandboxTester: whether the user is in `sandbox_testers`.
    ///   - asOf: `--as-of`, the instant expiries are judged against.
    public static func compute(
        receipts: [UserReceipt],
        catalog: ProductCatalog,
        sandboxPolicy: SandboxPolicy,
        isSandboxTester: Bool,
        asOf: Date
    ) -> UserTruth {
        // Newest receipt first, so a transaction reported by several receipts takes its fields
        // from the newest answer whatever order the shell passed them in.
        let ordered = receipts.sorted { $0.receiptID > $1.receiptID }

        var carriers: [String: Set<ReceiptStanding>] = [:]
        var countedByID: [String: VerifyReceiptTransaction] = [:]
        var countedOrder: [String] = []
        var countedWithoutID: [VerifyReceiptTransaction] = []
        var renewalInfo: [VerifyReceiptPendingRenewalInfo] = []

        for receipt in ordered {
            let standing = receipt.standing(sandboxPolicy: sandboxPolicy, isSandboxTester: isSandboxTester)
            for transaction in receipt.transactions {
                if let product = catalog[transaction.productID], product.kind != .consumable,
                    let entitlement = product.entitlement
                {
                    carriers[entitlement, default: []].insert(standing)
                }
                guard standing == .counted else { continue }
                guard let id = transaction.transactionID, !id.isEmpty else {
                    countedWithoutID.append(transaction)
                    continue
                }
                if let earlier = countedByID[id] {
                    countedByID[id] = earlier.merging(transaction)
                } else {
                    countedOrder.append(id)
                    countedByID[id] = transaction
                }
            }
            if standing == .counted { renewalInfo += receipt.pendingRenewalInfo }
        }

        var byEntitlement: [String: [EntitlementTransaction]] = [:]
        for transaction in countedOrder.compactMap({ countedByID[$0] }) + countedWithoutID {
            guard let entitlementTransaction = EntitlementTransaction(transaction, catalog: catalog),
                let entitlement = catalog[transaction.productID]?.entitlement
            else { continue }
            byEntitlement[entitlement, default: []].append(entitlementTransaction)
        }

        let names = Set(carriers.keys).union(byEntitlement.keys)
        let truths = names.map { name in
            entitlementTruth(
                name,
                transactions: byEntitlement[name] ?? [],
                renewalInfo: renewalInfo,
                carriers: carriers[name] ?? [],
                asOf: asOf)
        }
        return UserTruth(
            asOf: asOf,
            entitlements: truths,
            hasUnverifiedReceipt: receipts.contains { $0.outcome == .unverified })
    }

    /// The truth of one entitlement from its counted transactions.
    static func entitlementTruth(
        _ entitlement: String,
        transactions: [EntitlementTransaction],
        renewalInfo: [VerifyReceiptPendingRenewalInfo],
        carriers: Set<ReceiptStanding>,
        asOf: Date
    ) -> EntitlementTruth {
        let granting = transactions.filter(\.grantsAccess)
        let refunded = transactions.filter(\.isRefunded).sorted(by: EntitlementTransaction.byPurchase)
        let newest = transactions.max(by: EntitlementTransaction.byPurchase)

        var truth = EntitlementTruth(
            entitlement: entitlement,
            refundedTransactions: refunded,
            newestTransactionIsRefunded: newest?.isRefunded ?? false,
            hasCountingTransactions: transactions.contains { !$0.isRefunded },
            carriers: carriers)

        let winner = granting.max(by: EntitlementTransaction.byAccessEnd)
        truth.winningTransaction = winner
        truth.expiry = winner?.accessEnd
        if let end = winner?.accessEnd, end.isAfter(asOf) {
            truth.isActive = true
            return truth
        }

        // Billing retry: the latest-expiring subscription's chain may still be in its grace period.
        let subscriptions = granting.filter { $0.kind == .autoRenewable }
        if let subscription = subscriptions.max(by: EntitlementTransaction.byAccessEnd),
            let grace = gracePeriodEnd(chain: subscription.originalTransactionID, renewalInfo: renewalInfo),
            grace.isAfter(asOf)
        {
            truth.isActive = true
            truth.expiry = grace
            truth.expiryIsGracePeriodEnd = true
            truth.winningTransaction = subscription
        }
        return truth
    }

    /// The latest `grace_period_expires_date` Apple reports for the chain (`original_transaction_id`).
    static func gracePeriodEnd(chain: String?, renewalInfo: [VerifyReceiptPendingRenewalInfo]) -> Expiry? {
        guard let chain else { return nil }
        return renewalInfo
            .filter { $0.originalTransactionID == chain }
            .compactMap { $0.gracePeriodExpiresDate.map { Expiry($0) } }
            .max()
    }
}
