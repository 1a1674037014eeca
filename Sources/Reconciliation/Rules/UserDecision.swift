import AppStoreReceipts
import Foundation

/// Decide: one user's truth, corrections and flags from what Apple said (DESIGN: "the unit of work
/// is one user"). Pure: the pipeline calls it, the tests call it, nothing else decides.
///
/// Two steps, because corrections compare the truth with the entitlement rows *as they are inside
/// the writer's transaction* (which makes a redone user harmless):
/// 1. `decide` (before writing): outcomes as rows, Apple's transactions as rows, receipt flags, truth;
/// 2. `plan` (inside the user's transaction, under its lock): corrections and per-user flags.
public enum UserDecision {
    /// What the run knows that is the same for every user.
    public struct Settings: Hashable, Sendable {
        public var catalog: ProductCatalog
        public var sandboxPolicy: SandboxPolicy
        /// `--as-of`; nil in a live night (`JudgementInstant`).
        public var asOf: Date?

        public init(catalog: ProductCatalog, sandboxPolicy: SandboxPolicy, asOf: Date?) {
            self.catalog = catalog
            self.sandboxPolicy = sandboxPolicy
            self.asOf = asOf
        }
    }

    /// A user whose rows Apple has judged: everything the writer needs except the plan.
    public struct Verified: Sendable {
        public let userID: String
        public let receipts: [UserReceipt]
        public let results: [ResultRecord]
        public let transactions: [TransactionRecord]
        public let receiptFlags: [PlannedFlag]
        public let truth: UserTruth
        /// (receipt, original transaction) pairs for the run's end-of-run `shared_transaction` scan,
        /// which needs every user of the run.
        public let sharedScan: [(receiptID: Int64, originalTransactionID: String)]

        /// Apple's answer leaves no row transiently `unverified` and no lapse unconfirmed: the user's
        /// change was acted on or shown to need none, so the notifications naming them are handled and the
        /// sweep may wait for them (`UnitWriter`). An answer worth asking again is not, nor a lapse Apple's
        /// renewal state did not speak for (it may be a grace period: a later night asks again). A user
        /// whose rows were not all answered is never written.
        public var conclusive: Bool {
            !truth.hasUnverifiedReceipt && !truth.entitlements.contains(where: \.lapseUnconfirmed)
        }

        public var unverifiedReceipts: Int { receipts.count { $0.outcome == .unverified } }
        public var appleStatuses: [Int?] { results.map(\.appleStatus) }
    }

    /// The user's decision, made before writing.
    /// - Parameters:
    ///   - answers: what the backend said about the user's rows.
    ///   - isSandboxTester: the user is in `sandbox_testers` (misrouted receipts then count).
    ///   - decidedAt: now; the instant of judgement of a live night's user no Apple answer dates.
    public static func decide(
        userID: String,
        answers: [ReceiptAnswer],
        isSandboxTester: Bool,
        settings: Settings,
        decidedAt: Date = Date()
    ) -> Verified {
        let receipts = answers.map(\.receipt)
        let results = answers.map { answer in
            ResultRecord(
                receiptID: answer.receipt.receiptID, outcome: answer.receipt.outcome,
                appleStatus: answer.receipt.classification.appleStatus,
                environment: answer.receipt.classification.environment, attempts: answer.attempts,
                detail: answer.receipt.classification.detail, bundleID: answer.bundleID)
        }
        let (transactions, shared) = transactionRows(receipts)
        let asOf = JudgementInstant.of(receipts, asOf: settings.asOf, decidedAt: decidedAt)
        let truth = UserTruth.compute(
            receipts: receipts, catalog: settings.catalog, sandboxPolicy: settings.sandboxPolicy,
            isSandboxTester: isSandboxTester, asOf: asOf)
        let flags = FlagRule.receiptFlags(receipts, catalog: settings.catalog, asOf: asOf)
        return Verified(
            userID: userID, receipts: receipts, results: results, transactions: transactions, receiptFlags: flags,
            truth: truth, sharedScan: shared)
    }

    /// The user's corrections, planned against the user's rows as they are now.
    public static func plan(_ user: Verified, state: UserState) -> UnitPlan {
        let corrections = CorrectionPlanner.plan(
            truth: user.truth, rows: state.entitlements, userHasUnverifiedReceipt: user.truth.hasUnverifiedReceipt,
            previouslyRefundedTransactionIDs: state.previouslyRefunded)
        return UnitPlan(
            results: user.results, transactions: user.transactions, flags: user.receiptFlags,
            corrections: corrections, sharedScan: user.sharedScan)
    }

    /// Apple's purchases as `recon_transactions` rows, and the pairs of the shared scan. Only
    /// `valid` and `misrouted` receipts carry Apple's truth; first occurrence wins, in order, for
    /// both (a renewal reported by two receipts of the user is one purchase), unless a later report
    /// outranks it and says otherwise whether the purchase stands (`Purchase.merged`): then the row is
    /// the fresher one's, so a refund a stale signed row still carries is not recorded as standing.
    static func transactionRows(_ receipts: [UserReceipt])
        -> (rows: [TransactionRecord], shared: [(receiptID: Int64, originalTransactionID: String)])
    {
        let recorded = { (receipt: UserReceipt) in receipt.outcome == .valid || receipt.outcome == .misrouted }
        // Counted first, so the rows and the first-occurrence sets are allocated once.
        let count = receipts.reduce(0) { recorded($1) ? $0 + $1.purchases.count : $0 }
        var rows: [TransactionRecord] = []
        var shared: [(receiptID: Int64, originalTransactionID: String)] = []
        rows.reserveCapacity(count)
        shared.reserveCapacity(count)
        var seenTransactions = SeenKeys<String>(expected: count)
        /// The purchase each row was built from, in row order.
        var reports: [Purchase] = []
        reports.reserveCapacity(count)
        var seenShared = SeenKeys<SharedScanKey>(expected: count)
        for receipt in receipts where recorded(receipt) {
            for purchase in receipt.purchases {
                let fields = purchase.fields
                guard let id = fields.transactionID, let original = fields.originalTransactionID,
                    fields.productID != nil
                else { continue }
                if seenShared.insert(SharedScanKey(receiptID: receipt.receiptID, originalTransactionID: original)) {
                    shared.append((receipt.receiptID, original))
                }
                if let position = seenTransactions.position(inserting: id) {
                    let kept = reports[position]
                    guard purchase.outranks(kept), !purchase.standsAs(kept) else { continue }
                    reports[position] = Purchase.merged(purchase, kept)
                    rows[position] = record(reports[position].fields, reports[position].refundPercentage, receipt)
                    continue
                }
                reports.append(purchase)
                rows.append(record(fields, purchase.refundPercentage, receipt))
            }
        }
        return (rows, shared)
    }

    /// A purchase with a transaction, original transaction and product id as its `recon_transactions` row.
    private static func record(_ fields: Purchase.Fields, _ refundPercentage: Percentage?, _ receipt: UserReceipt)
        -> TransactionRecord
    {
        TransactionRecord(
            transactionID: fields.transactionID ?? "", originalTransactionID: fields.originalTransactionID ?? "",
            productID: fields.productID ?? "", receiptID: receipt.receiptID,
            environment: fields.environment ?? receipt.classification.environment,
            purchasedAt: fields.purchaseDate, originalPurchasedAt: fields.originalPurchaseDate,
            expiresAt: fields.expiresDate, cancelledAt: fields.revocation?.date,
            cancellationReason: fields.revocation?.reason, isTrial: fields.offer.isTrial,
            isIntroOffer: fields.offer.isIntroOffer, isUpgraded: fields.isUpgraded,
            ownershipType: fields.ownership, quantity: fields.quantity,
            webOrderLineItemID: fields.webOrderLineItemID, price: fields.price, currency: fields.currency,
            storefront: fields.storefront, offerType: fields.offer.type,
            offerDiscountType: fields.offer.discountType, transactionReason: fields.transactionReason,
            revocationType: fields.revocation?.type, revocationPercentage: refundPercentage, source: fields.source)
    }

    /// One shared-scan pair as a set member, without formatting it into a string.
    private struct SharedScanKey: Hashable {
        let receiptID: Int64
        let originalTransactionID: String
    }
}
