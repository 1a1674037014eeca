import AppStoreReceipts
import Foundation

/// Turns one user's receipt checks into the rules' inputs, and the rules' outputs into table rows.
/// Pure: no I/O, so the mapping is tested without a database.
enum UnitBuilder {
    /// A user whose receipts are all checked: everything the writer needs except the plan, which is
    /// made inside the writer's transaction from the rows as they are then.
    struct PreparedUser: Sendable {
        let userID: String
        let receipts: [UserReceipt]
        let results: [ResultRecord]
        let transactions: [TransactionRecord]
        let receiptFlags: [FlagRecord]
        let truth: UserTruth
        let sharedScan: [(receiptID: Int64, originalTransactionID: String)]
        let appleStatuses: [Int?]
        let hasUnverifiedReceipt: Bool
    }

    /// Classifies each receipt, computes the user's truth and the receipt-level flags.
    /// - Throws: `ConfigurationAbort` when Apple answered 21004/21000 (the run must stop, exit 78).
    static func prepare(
        work: UserWork,
        checks: [Int64: ReceiptCheck],
        context: ReceiptOutcomeContext,
        catalog: ProductCatalog,
        options: RunOptions
    ) throws(ConfigurationAbort) -> PreparedUser {
        var receipts: [UserReceipt] = []
        var results: [ResultRecord] = []
        var statuses: [Int?] = []
        receipts.reserveCapacity(work.receipts.count)
        results.reserveCapacity(work.receipts.count)
        statuses.reserveCapacity(work.receipts.count)
        for stored in work.receipts {
            guard let check = checks[stored.id] else { continue }
            // Data ruled on locally (empty, not base64, Xcode) was never sent: it has no report.
            let classification: ReceiptClassification
            if let report = check.report {
                classification = try ReceiptOutcomeRule.classify(ReceiptVerification(report), local: check.local,
                                                                 context: context)
            } else if let ruling = ReceiptOutcomeRule.localRuling(check.local) {
                classification = ruling
            } else {
                continue
            }
            receipts.append(UserReceipt(receiptID: stored.id, classification: classification,
                                        response: check.report?.response))
            statuses.append(classification.appleStatus)
            results.append(ResultRecord(
                receiptID: stored.id, outcome: classification.outcome.rawValue, appleStatus: classification.appleStatus,
                environment: classification.environment, attempts: check.report?.requests ?? 0,
                detail: classification.detail,
                bundleID: check.report?.response?.receipt?.bundleID ?? check.localBundleID))
        }

        // Apple's answer is recorded for valid and misrouted receipts; the others carry no truth.
        // Counted first, so the rows and the first-occurrence lists are allocated once.
        let recorded = { (receipt: UserReceipt) in receipt.outcome == .valid || receipt.outcome == .misrouted }
        let transactionCount = receipts.reduce(0) { recorded($1) ? $0 + $1.transactions.count : $0 }
        var transactions: [TransactionRecord] = []
        var shared: [(receiptID: Int64, originalTransactionID: String)] = []
        transactions.reserveCapacity(transactionCount)
        shared.reserveCapacity(transactionCount)
        // First occurrence wins, in order, for both.
        var seenTransactions = SeenKeys<String>(expected: transactionCount)
        var seenShared = SeenKeys<SharedScanKey>(expected: transactionCount)
        for receipt in receipts where recorded(receipt) {
            for transaction in receipt.transactions {
                guard let id = transaction.transactionID, let original = transaction.originalTransactionID,
                      let product = transaction.productID else { continue }
                if seenShared.insert(SharedScanKey(receiptID: receipt.receiptID, originalTransactionID: original)) {
                    shared.append((receipt.receiptID, original))
                }
                // One transaction row per id: a renewal reported by two receipts of the user is one purchase.
                guard seenTransactions.insert(id) else { continue }
                transactions.append(TransactionRecord(
                    transactionID: id, originalTransactionID: original, productID: product, receiptID: receipt.receiptID,
                    environment: receipt.classification.environment, purchasedAt: transaction.purchaseDate,
                    originalPurchasedAt: transaction.originalPurchaseDate, expiresAt: transaction.expiresDate,
                    cancelledAt: transaction.cancellationDate, cancellationReason: transaction.cancellationReason,
                    isTrial: transaction.isTrialPeriod, isIntroOffer: transaction.isInIntroOfferPeriod,
                    isUpgraded: transaction.isUpgraded, ownershipType: transaction.inAppOwnershipType,
                    quantity: transaction.quantity, webOrderLineItemID: transaction.webOrderLineItemID))
            }
        }
        let truth = UserTruth.compute(receipts: receipts, catalog: catalog,
                                      sandboxPolicy: options.sandboxPolicy,
                                      isSandboxTester: work.isSandboxTester, asOf: options.asOf)
        // shared_transaction needs every user of the run: the end-of-run scan decides it.
        let flags = FlagRule.receiptFlags(receipts, catalog: catalog, originalTransactionIDsOfOtherUsers: [])
            .map { FlagRecord(receiptID: $0.receiptID, kind: $0.kind.rawValue, detail: $0.detail) }
        return PreparedUser(
            userID: work.userID, receipts: receipts, results: results, transactions: transactions,
            receiptFlags: flags, truth: truth, sharedScan: shared,
            appleStatuses: statuses, hasUnverifiedReceipt: receipts.contains { $0.outcome == .unverified })
    }

    /// One `sharedScan` entry as a set member, without formatting it into a string.
    private struct SharedScanKey: Hashable {
        let receiptID: Int64
        let originalTransactionID: String
    }

    /// The corrections for the rows as they are now, as `recon_corrections` rows, plus per-user flags.
    static func plan(_ user: PreparedUser, state: UnitWriter.UserState) -> (corrections: [CorrectionRecord], flags: [FlagRecord]) {
        let plan = CorrectionPlanner.plan(
            truth: user.truth, rows: state.entitlements, userHasReceipts: !user.receipts.isEmpty,
            userHasUnverifiedReceipt: user.hasUnverifiedReceipt,
            previouslyRefundedTransactionIDs: state.previouslyRefunded)
        let corrections = plan.corrections.map {
            CorrectionRecord(entitlement: $0.entitlement, action: $0.action.rawValue, reason: $0.reason.rawValue,
                             beforeActive: $0.beforeActive, beforeExpiresAt: $0.beforeExpiresAt, afterActive: $0.afterActive,
                             afterExpiresAt: $0.afterExpiresAt, productID: $0.productID,
                             originalTransactionID: $0.originalTransactionID)
        }
        let flags = plan.userFlags.map { FlagRecord(receiptID: $0.receiptID, kind: $0.kind.rawValue, detail: $0.detail) }
        return (corrections, flags)
    }
}
