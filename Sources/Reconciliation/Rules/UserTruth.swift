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

        // Why positions and slots instead of dictionaries of transactions: Apple's transaction is a
        // struct of a dozen strings, and every copy into and out of a dictionary retained and
        // released each of them. Here a counted transaction is a position in `ordered` until it is
        // read once, and each transaction's product is looked up once.
        var slots: [EntitlementSlot] = []
        var countedPosition: [String: Int] = [:]
        var counted: [CountedTransaction] = []
        var countedWithoutID: [CountedTransaction] = []
        var renewalInfo: [VerifyReceiptPendingRenewalInfo] = []
        let transactionCount = ordered.reduce(0) { $0 + $1.transactions.count }
        countedPosition.reserveCapacity(transactionCount)
        counted.reserveCapacity(transactionCount)

        // A user has a few entitlements and a few products, named again by every transaction: a scan
        // of the slots and a memo of the last product compare strings, where dictionaries hashed each
        // name (SipHash over a 30-byte product id) several times per transaction.
        func slot(of entitlement: String) -> Int {
            if let slot = slots.firstIndex(where: { $0.name == entitlement }) { return slot }
            slots.append(EntitlementSlot(name: entitlement))
            return slots.count - 1
        }
        // The user's products, each read out of the catalog once and then named by position: a
        // `Product`'s strings are shared by every thread, and each copy of one retained and released
        // them on cache lines the cores contend for.
        var products: [Product] = []
        var lastProduct: (id: String, position: Int?)?
        func lookUpProduct(_ id: String?) -> Int? {
            guard let id else { return nil }
            if let lastProduct, lastProduct.id == id { return lastProduct.position }
            var position = products.firstIndex { $0.productID == id }
            if position == nil, let product = catalog[id] {
                products.append(product)
                position = products.count - 1
            }
            lastProduct = (id, position)
            return position
        }

        for receiptIndex in ordered.indices {
            let standing = ordered[receiptIndex].standing(
                sandboxPolicy: sandboxPolicy, isSandboxTester: isSandboxTester)
            let transactions = ordered[receiptIndex].transactions
            for transactionIndex in transactions.indices {
                let product = lookUpProduct(transactions[transactionIndex].productID)
                if let product, products[product].kind != .consumable, let entitlement = products[product].entitlement {
                    let index = slot(of: entitlement)
                    slots[index].carry(standing)
                    if standing == .counted, ordered[receiptIndex].isSignedData { slots[index].isSignedEvidence = true }
                }
                guard standing == .counted else { continue }
                let entry = CountedTransaction(receipt: receiptIndex, transaction: transactionIndex, product: product)
                guard let id = transactions[transactionIndex].transactionID, !id.isEmpty else {
                    countedWithoutID.append(entry)
                    continue
                }
                if let earlier = countedPosition[id] {
                    // Rare: one purchase reported by two receipts of the user, the newer one's fields first.
                    let merged = counted[earlier].resolved(in: ordered).merging(transactions[transactionIndex])
                    counted[earlier].merged = merged
                    counted[earlier].product = lookUpProduct(merged.productID)
                } else {
                    countedPosition[id] = counted.count
                    counted.append(entry)
                }
            }
            if standing == .counted { renewalInfo += ordered[receiptIndex].pendingRenewalInfo }
        }

        var byEntitlement = [[EntitlementTransaction]](repeating: [], count: slots.count)
        func assign(_ entry: CountedTransaction) {
            guard let product = entry.product, let entitlement = products[product].entitlement else { return }
            let read =
                if let merged = entry.merged {
                    EntitlementTransaction(merged, product: products[product])
                } else {
                    EntitlementTransaction(
                        ordered[entry.receipt].transactions[entry.transaction], product: products[product])
                }
            guard let entitlementTransaction = read else { return }
            let index = slot(of: entitlement)  // always met above; a new slot would be an entitlement without carriers
            if index == byEntitlement.count { byEntitlement.append([]) }
            byEntitlement[index].append(entitlementTransaction)
        }
        counted.forEach(assign)
        countedWithoutID.forEach(assign)

        let truths = slots.indices.map { index in
            entitlementTruth(
                slots[index].name,
                transactions: byEntitlement[index],
                renewalInfo: renewalInfo,
                carriers: slots[index].carriers,
                carriedBySignedData: slots[index].isSignedEvidence,
                asOf: asOf)
        }
        return UserTruth(
            asOf: asOf,
            entitlements: truths,
            hasUnverifiedReceipt: receipts.contains { $0.outcome == .unverified })
    }

    /// An entitlement met in the user's receipts, and how the receipts carrying it stand.
    private struct EntitlementSlot {
        let name: String
        private var standings: UInt8 = 0
        /// A counted row of signed data carries the entitlement.
        var isSignedEvidence = false

        init(name: String) { self.name = name }

        mutating func carry(_ standing: ReceiptStanding) { standings |= Self.bit(standing) }

        var carriers: Set<ReceiptStanding> { Self.sets[Int(standings)] }

        /// Every combination of standings, built once: most users' entitlements share `[.counted]`.
        private static let sets: [Set<ReceiptStanding>] = (0..<32).map { bits in
            Set(ReceiptStanding.allCases.filter { UInt8(bits) & bit($0) != 0 })
        }

        private static func bit(_ standing: ReceiptStanding) -> UInt8 {
            switch standing {
            case .counted: 1
            case .misroutedNotCounted: 2
            case .invalidReceipt: 4
            case .bundleMismatch: 8
            case .unverified: 16
            }
        }
    }

    /// A counted transaction: where it is in the receipts, or its merged fields when several
    /// receipts reported it, and where its product is in the user's products.
    private struct CountedTransaction {
        let receipt: Int
        let transaction: Int
        var product: Int?
        var merged: VerifyReceiptTransaction?

        init(receipt: Int, transaction: Int, product: Int?) {
            self.receipt = receipt
            self.transaction = transaction
            self.product = product
        }

        func resolved(in receipts: [UserReceipt]) -> VerifyReceiptTransaction {
            merged ?? receipts[receipt].transactions[transaction]
        }
    }

    /// The truth of one entitlement from its counted transactions.
    static func entitlementTruth(
        _ entitlement: String,
        transactions: [EntitlementTransaction],
        renewalInfo: [VerifyReceiptPendingRenewalInfo],
        carriers: Set<ReceiptStanding>,
        carriedBySignedData: Bool = false,
        asOf: Date
    ) -> EntitlementTruth {
        // One pass for the winner, the newest and the latest subscription (each as `max(by:)` would
        // pick it: the first of equals), without filtered copies of the transactions.
        var winner: Int?
        var subscription: Int?
        var newest: Int?
        var hasCountingTransactions = false
        var hasRefunded = false
        for (index, transaction) in transactions.enumerated() {
            if let current = newest {
                if EntitlementTransaction.byPurchase(transactions[current], transaction) { newest = index }
            } else {
                newest = index
            }
            if transaction.isRefunded { hasRefunded = true } else { hasCountingTransactions = true }
            guard transaction.grantsAccess else { continue }
            if winner.map({ EntitlementTransaction.byAccessEnd(transactions[$0], transaction) }) ?? true {
                winner = index
            }
            if transaction.kind == .autoRenewable,
                subscription.map({ EntitlementTransaction.byAccessEnd(transactions[$0], transaction) }) ?? true
            {
                subscription = index
            }
        }
        let refunded =
            hasRefunded
            ? transactions.filter(\.isRefunded).sorted(by: EntitlementTransaction.byPurchase) : []

        var truth = EntitlementTruth(
            entitlement: entitlement,
            refundedTransactions: refunded,
            newestTransactionIsRefunded: newest.map { transactions[$0].isRefunded } ?? false,
            hasCountingTransactions: hasCountingTransactions,
            carriers: carriers,
            carriedBySignedData: carriedBySignedData)

        let winning = winner.map { transactions[$0] }
        truth.winningTransaction = winning
        truth.expiry = winning?.accessEnd
        if let end = winning?.accessEnd, end.isAfter(asOf) {
            truth.isActive = true
            return truth
        }

        // Billing retry: the latest-expiring subscription's chain may still be in its grace period.
        if let subscription = subscription.map({ transactions[$0] }),
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
        return
            renewalInfo
            .filter { $0.originalTransactionID == chain }
            .compactMap { $0.gracePeriodExpiresDate.map { Expiry($0) } }
            .max()
    }
}
