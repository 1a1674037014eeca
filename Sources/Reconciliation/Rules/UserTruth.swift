import AppStoreReceipts
import Foundation

/// One user's truth: every entitlement Apple's answers say something about, at `as_of`.
///
/// CONTRACT §5 and §9 ("As of"), read as in docs/reconciliation-rules.md ("Which transactions count",
/// "Truth per entitlement").
public struct UserTruth: Hashable, Sendable {
    public var asOf: Date
    /// Sorted by entitlement name.
    public var entitlements: [EntitlementTruth]
    /// Whether any row of the run ended `unverified` in a way asking again may change (guard 1 of the
    /// corrections). A permanent `unverified` does not count here: it keeps only what it names.
    public var hasUnverifiedReceipt: Bool
    /// The rows the truth was computed from, with this run's answers: what a correction's evidence names
    /// when no purchase decided it (`no_purchase`, `invalid_receipt`, ...).
    public var receipts: [UserReceipt]

    public init(
        asOf: Date, entitlements: [EntitlementTruth] = [], hasUnverifiedReceipt: Bool = false,
        receipts: [UserReceipt] = []
    ) {
        self.asOf = asOf
        self.entitlements = entitlements.sorted { $0.entitlement < $1.entitlement }
        self.hasUnverifiedReceipt = hasUnverifiedReceipt
        self.receipts = receipts
    }

    public subscript(entitlement: String) -> EntitlementTruth? {
        entitlements.first { $0.entitlement == entitlement }
    }

    /// Computes the truth from this run's results for the user's rows.
    ///
    /// - Which purchases count: the union, deduplicated by transaction id, over `valid` rows, plus
    ///   `misrouted` ones under `--sandbox-policy flag` or for a sandbox tester (`UserReceipt.standing`).
    ///   Unknown products and consumables grant nothing; nor does a purchase made after `asOf`. A purchase
    ///   several rows report stands as the freshest report says (`Purchase.merged`, by `evidenceDate`).
    /// - Revocations: a revoked purchase counts as never purchased unless it is upgraded; an upgraded
    ///   purchase grants nothing by itself. A revocation or an upgrade after `asOf` has not happened yet
    ///   (`UpgradeInstant`).
    /// - `auto_renewable`: active while any chain is active (its latest end after `asOf`) or in its billing
    ///   grace period (a renewal state that speaks for `asOf`); the expiry is the latest of those ends.
    /// - `non_consumable`: active, never expires. `non_renewing`: `purchase_date + duration`.
    ///   Products of different kinds naming one entitlement: the latest end wins (`.never` last).
    ///
    /// - Parameters:
    ///   - receipts: the user's rows with this run's outcomes, in any order.
    ///   - catalog: `products`.
    ///   - sandboxPolicy: `--sandbox-policy`.
    ///   - isSandboxTester: whether the user is in `sandbox_testers`.
    ///   - asOf: the user's instant of judgement (`JudgementInstant`): everything is judged at it.
    public static func compute(
        receipts: [UserReceipt],
        catalog: ProductCatalog,
        sandboxPolicy: SandboxPolicy,
        isSandboxTester: Bool,
        asOf: Date
    ) -> UserTruth {
        // Newest row first, so of reports of one purchase speaking for the same instant the newest
        // row's wins whatever order the shell passed them in.
        let ordered = receipts.sorted { $0.receiptID > $1.receiptID }
        var slots: [EntitlementSlot] = []
        func slot(of entitlement: String) -> Int {
            if let slot = slots.firstIndex(where: { $0.name == entitlement }) { return slot }
            slots.append(EntitlementSlot(name: entitlement))
            return slots.count - 1
        }
        // A user's purchases name a product or two, renewal after renewal: the product found last is
        // compared first (one string comparison) before the catalog hashes the id.
        var lastProduct: Product?
        func catalogProduct(_ productID: String?) -> Product? {
            guard let productID else { return nil }
            if let last = lastProduct, last.productID == productID { return last }
            lastProduct = catalog[productID]
            return lastProduct
        }
        var counted: [Purchase] = []
        /// The row each counted purchase was taken from (the one whose report is the freshest).
        var countedReceipt: [Int64] = []
        var countedPosition: [String: Int] = [:]
        // Sized once for every purchase, so it never rehashes while it is filled.
        countedPosition.reserveCapacity(receipts.reduce(0) { $0 + $1.purchases.count })
        var renewals: [SubscriptionRenewal] = []

        for receipt in ordered {
            let standing = receipt.standing(sandboxPolicy: sandboxPolicy, isSandboxTester: isSandboxTester)
            for purchase in receipt.purchases {
                if let product = catalogProduct(purchase.productID), product.kind != .consumable,
                    let entitlement = product.entitlement
                {
                    let index = slot(of: entitlement)
                    slots[index].carry(standing)
                    if slots[index].receiptIDs.last != receipt.receiptID {
                        slots[index].receiptIDs.append(receipt.receiptID)
                    }
                    if standing == .counted, receipt.isSignedData { slots[index].isSignedEvidence = true }
                }
                guard standing == .counted else { continue }
                guard let id = purchase.transactionID, !id.isEmpty else {
                    counted.append(purchase)
                    countedReceipt.append(receipt.receiptID)
                    continue
                }
                if let earlier = countedPosition[id] {
                    // One purchase reported by two rows of the user: the fresher report says whether it
                    // stands (`Purchase.merged`), and its row is the one the evidence names.
                    if purchase.outranks(counted[earlier]) { countedReceipt[earlier] = receipt.receiptID }
                    counted[earlier] = Purchase.merged(counted[earlier], purchase)
                } else {
                    countedPosition[id] = counted.count
                    counted.append(purchase)
                    countedReceipt.append(receipt.receiptID)
                }
            }
            if standing == .counted { renewals += receipt.renewals }
        }

        var byEntitlement = [[EntitlementTransaction]](repeating: [], count: slots.count)
        let upgrades = UpgradeInstant.of(counted)
        for ((purchase, receiptID), upgradedAt) in zip(zip(counted, countedReceipt), upgrades) {
            guard let product = catalogProduct(purchase.productID), let entitlement = product.entitlement,
                let transaction = EntitlementTransaction(
                    purchase, product: product, asOf: asOf, upgradedAt: upgradedAt, receiptID: receiptID)
            else { continue }
            byEntitlement[slot(of: entitlement)].append(transaction)
        }

        let speaking = renewals.filter { RenewalStateRule.speaks(answeredAt: $0.evidenceDate, for: asOf) }
        let truths = slots.indices.map { index in
            entitlementTruth(
                slots[index].name, transactions: byEntitlement[index], renewals: speaking,
                renewalStateSpeaks: renewalStateSpeaks(byEntitlement[index], asOf: asOf),
                carriers: slots[index].carriers, carriedBySignedData: slots[index].isSignedEvidence,
                carrierReceiptIDs: slots[index].receiptIDs.sorted(), asOf: asOf)
        }
        return UserTruth(
            asOf: asOf,
            entitlements: truths,
            hasUnverifiedReceipt: receipts.contains { $0.classification.unverified == .transient },
            receipts: receipts)
    }

    /// An entitlement met in the user's rows, and how the rows carrying it stand.
    private struct EntitlementSlot {
        let name: String
        /// The standings of the rows carrying the entitlement, one bit per `ReceiptStanding` case: noted
        /// for every purchase, so a bit, not a hashed insert.
        private var carrierBits: UInt32 = 0
        var carriers: Set<ReceiptStanding> { Set(ReceiptStanding.allCases.filter { carrierBits & $0.bit != 0 }) }
        /// A counted row of signed data carries the entitlement.
        var isSignedEvidence = false
        /// The rows whose purchases name the entitlement, each once.
        var receiptIDs: [Int64] = []

        init(name: String) { self.name = name }

        mutating func carry(_ standing: ReceiptStanding) {
            carrierBits |= standing.bit
        }
    }

    /// Whether Apple's renewal state is known at `asOf` for the entitlement's subscriptions: Apple's
    /// newest answer about them was given within the hour of `asOf` (an answer without an instant of its
    /// own is taken to be). Otherwise a lapse within the billing-retry window cannot be told from a grace
    /// period. Signed rows are judged by their own guard (`CorrectionPlanner.signedDataGuard`).
    static func renewalStateSpeaks(_ transactions: [EntitlementTransaction], asOf: Date) -> Bool {
        let evidence = transactions.lazy.filter { $0.kind == .autoRenewable && $0.source != .signedRow }
            .compactMap(\.evidenceDate).max()
        return RenewalStateRule.speaks(answeredAt: evidence, for: asOf)
    }

    /// The truth of one entitlement from its counted transactions.
    static func entitlementTruth(
        _ entitlement: String,
        transactions: [EntitlementTransaction],
        renewals: [SubscriptionRenewal],
        renewalStateSpeaks: Bool = true,
        carriers: Set<ReceiptStanding>,
        carriedBySignedData: Bool = false,
        carrierReceiptIDs: [Int64] = [],
        asOf: Date
    ) -> EntitlementTruth {
        var winner: Int?
        var newest: Int?
        var hasCountingTransactions = false
        var chainEnds: [String: Int] = [:]  // chain → position of its latest-ending granting subscription
        for (index, transaction) in transactions.enumerated() {
            if newest.map({ EntitlementTransaction.byPurchase(transactions[$0], transaction) }) ?? true {
                newest = index
            }
            if !transaction.isRevoked { hasCountingTransactions = true }
            guard transaction.grantsAccess else { continue }
            if winner.map({ EntitlementTransaction.byAccessEnd(transactions[$0], transaction) }) ?? true {
                winner = index
            }
            if transaction.kind == .autoRenewable, let chain = transaction.chain {
                if chainEnds[chain].map({ EntitlementTransaction.byAccessEnd(transactions[$0], transaction) }) ?? true {
                    chainEnds[chain] = index
                }
            }
        }
        let revoked = transactions.filter(\.isRevoked).sorted(by: EntitlementTransaction.byPurchase)
        var truth = EntitlementTruth(
            entitlement: entitlement,
            refundedTransactions: revoked,
            newestTransactionIsRefunded: newest.map { transactions[$0].isRevoked } ?? false,
            newestRevocationIsFamily: newest.map { transactions[$0].isRevoked && transactions[$0].isFamilyRevocation }
                ?? false,
            hasCountingTransactions: hasCountingTransactions,
            carriers: carriers,
            carriedBySignedData: carriedBySignedData,
            carrierReceiptIDs: carrierReceiptIDs)

        let winning = winner.map { transactions[$0] }
        truth.winningTransaction = winning
        truth.expiry = winning?.accessEnd
        if let end = winning?.accessEnd, end.isAfter(asOf) { truth.isActive = true }

        // Billing retry: any chain may be in its grace period, and its end may lie beyond every other end.
        for (chain, position) in chainEnds.sorted(by: { $0.key < $1.key }) {
            let subscription = transactions[position]
            if let end = subscription.accessEnd, end.isAfter(asOf) { continue }
            guard let grace = gracePeriodEnd(chain: chain, renewals: renewals), grace.isAfter(asOf) else {
                if !renewalStateSpeaks, let end = subscription.accessEnd?.date,
                    RenewalStateRule.mayBeInBillingRetry(endedAt: end, asOf: asOf)
                {
                    truth.lapseUnconfirmed = true
                }
                continue
            }
            if truth.isActive, let current = truth.expiry, current >= grace { continue }
            truth.isActive = true
            truth.expiry = grace
            truth.expiryIsGracePeriodEnd = true
            truth.winningTransaction = subscription
        }
        return truth
    }

    /// The latest grace period end Apple reports for the chain (`original_transaction_id`).
    static func gracePeriodEnd(chain: String?, renewals: [SubscriptionRenewal]) -> Expiry? {
        guard let chain else { return nil }
        return renewals.filter { $0.originalTransactionID == chain }
            .compactMap { $0.gracePeriodExpiresDate.map { Expiry($0) } }
            .max()
    }
}

extension ReceiptStanding {
    /// One bit per case, for `UserTruth`'s slots (exhaustive: a new case must be given its own bit).
    fileprivate var bit: UInt32 {
        switch self {
        case .counted: 1 << 0
        case .misroutedNotCounted: 1 << 1
        case .invalidReceipt: 1 << 2
        case .bundleMismatch: 1 << 3
        case .unverified: 1 << 4
        case .permanentlyUnverified: 1 << 5
        }
    }
}
