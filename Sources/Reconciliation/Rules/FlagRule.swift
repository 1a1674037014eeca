import AppStoreReceipts

/// The flags of docs/reconciliation-rules.md ("Receipt outcomes" and the lists below it): one
/// per receipt per kind per run, or per user where no receipt applies.
public enum FlagRule {
    /// Every receipt flag of a user's receipts, ordered by receipt id, then kind
    /// (`FlagKind.allCases` order).
    ///
    /// - Parameters:
    ///   - originalTransactionIDsOfOtherUsers: the `original_transaction_id`s seen on receipts of
    ///     other users (this run's answers and `recon_transactions`), for `shared_transaction`.
    public static func receiptFlags(
        _ receipts: [UserReceipt],
        catalog: ProductCatalog,
        originalTransactionIDsOfOtherUsers: Set<String>
    ) -> [PlannedFlag] {
        receipts
            .flatMap { receiptFlags($0, catalog: catalog, originalTransactionIDsOfOtherUsers: originalTransactionIDsOfOtherUsers) }
            .sorted(by: PlannedFlag.ordered)
    }

    /// One receipt's flags: the outcome's own flag (`invalid_receipt`, `bundle_mismatch`,
    /// `sandbox_in_production`, `production_in_sandbox`, `unverified`), and for `valid` and
    /// `misrouted` receipts `refunded`, `unknown_product` and `shared_transaction`.
    public static func receiptFlags(
        _ receipt: UserReceipt,
        catalog: ProductCatalog,
        originalTransactionIDsOfOtherUsers: Set<String>
    ) -> [PlannedFlag] {
        var flags: [PlannedFlag] = []
        if let kind = receipt.classification.outcomeFlag {
            flags.append(PlannedFlag(kind: kind, receiptID: receipt.receiptID, detail: receipt.classification.detail))
        }
        guard receipt.outcome == .valid || receipt.outcome == .misrouted else { return flags }
        let id = receipt.receiptID
        if let detail = refundedRule(receipt.transactions) {
            flags.append(PlannedFlag(kind: .refunded, receiptID: id, detail: detail))
        }
        if let detail = unknownProductRule(receipt.transactions, catalog: catalog) {
            flags.append(PlannedFlag(kind: .unknownProduct, receiptID: id, detail: detail))
        }
        if let detail = sharedTransactionRule(receipt.transactions, otherUsers: originalTransactionIDsOfOtherUsers) {
            flags.append(PlannedFlag(kind: .sharedTransaction, receiptID: id, detail: detail))
        }
        return flags.sorted(by: PlannedFlag.ordered)
    }

    /// `refunded`: a transaction of the receipt has `cancellation_date` and is not `is_upgraded`.
    /// - Returns: the flag's detail, or nil when no transaction was refunded.
    public static func refundedRule(_ transactions: [VerifyReceiptTransaction]) -> String? {
        let isRefunded = { (transaction: VerifyReceiptTransaction) in
            transaction.cancellationDate != nil && transaction.isUpgraded != true
        }
        // Most receipts have no refund: nothing is built for them.
        guard transactions.contains(where: isRefunded) else { return nil }
        let refunded = transactions.filter(isRefunded)
        let names = refunded.map { "\($0.transactionID ?? "?") (\($0.productID ?? "no product id"))" }
        return "refunded: " + listed(names)
    }

    /// `unknown_product`: a transaction's `product_id` is not in `products` (a missing
    /// `product_id` is not in `products` either).
    public static func unknownProductRule(_ transactions: [VerifyReceiptTransaction], catalog: ProductCatalog) -> String? {
        let isUnknown = { (transaction: VerifyReceiptTransaction) in !catalog.contains(transaction.productID) }
        // Nearly every product is known: nothing is built unless one is not.
        guard transactions.contains(where: isUnknown) else { return nil }
        let unknown = Set(transactions.filter(isUnknown).map { $0.productID ?? "(none)" })
        return "not in products: " + listed(Array(unknown))
    }

    /// `shared_transaction`: an `original_transaction_id` of the receipt appears on a receipt of
    /// another user.
    public static func sharedTransactionRule(_ transactions: [VerifyReceiptTransaction], otherUsers: Set<String>) -> String? {
        // The run's shell passes no other users (its end-of-run scan decides): nothing to collect.
        guard !otherUsers.isEmpty else { return nil }
        let shared = Set(transactions.compactMap(\.originalTransactionID).filter { otherUsers.contains($0) })
        guard !shared.isEmpty else { return nil }
        return "original transaction also on another user's receipt: " + listed(Array(shared))
    }

    /// `entitlement_without_receipt` (per user): an active `app_store` entitlement row and no
    /// receipt at all. Call only for users without receipts (`CorrectionPlanner.plan` does).
    public static func entitlementWithoutReceiptRule(rows: [EntitlementRow]) -> PlannedFlag? {
        let active = rows.filter { $0.isAppStore && $0.active }.map(\.entitlement)
        guard !active.isEmpty else { return nil }
        return PlannedFlag(
            kind: .entitlementWithoutReceipt,
            detail: "active app_store entitlement without any receipt: " + listed(active))
    }

    /// Sorted, deduplicated, at most 10 named (a detail is one line, not a dump).
    private static func listed(_ items: [String]) -> String {
        let sorted = Array(Set(items)).sorted()
        let shown = sorted.prefix(10).joined(separator: ", ")
        return sorted.count > 10 ? "\(shown) and \(sorted.count - 10) more" : shown
    }
}
