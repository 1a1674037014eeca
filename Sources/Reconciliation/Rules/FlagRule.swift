import AppStoreReceipts

/// The flags of docs/reconciliation-rules.md ("Receipt outcomes" and the lists below it): one
/// per receipt per kind per run, or per user where no receipt applies.
public enum FlagRule {
    /// Every receipt flag of a user's receipts, ordered by receipt id, then kind
    /// (`FlagKind.allCases` order).
    ///
    /// The flags that need other users' rows are decided at the end of the run, over the whole run,
    /// by `RunFinalizer`: `shared_transaction` (one original transaction on receipts of two or more
    /// users) and `entitlement_without_receipt` (an active row and no receipt at all).
    public static func receiptFlags(_ receipts: [UserReceipt], catalog: ProductCatalog) -> [PlannedFlag] {
        receipts.flatMap { receiptFlags($0, catalog: catalog) }.sorted(by: PlannedFlag.ordered)
    }

    /// One receipt's flags: the outcome's own flag (`invalid_receipt`, `bundle_mismatch`,
    /// `sandbox_in_production`, `production_in_sandbox`, `unverified`), and for `valid` and
    /// `misrouted` receipts `refunded` and `unknown_product`.
    public static func receiptFlags(_ receipt: UserReceipt, catalog: ProductCatalog) -> [PlannedFlag] {
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
    public static func unknownProductRule(_ transactions: [VerifyReceiptTransaction], catalog: ProductCatalog)
        -> String?
    {
        let isUnknown = { (transaction: VerifyReceiptTransaction) in !catalog.contains(transaction.productID) }
        // Nearly every product is known: nothing is built unless one is not.
        guard transactions.contains(where: isUnknown) else { return nil }
        let unknown = Set(transactions.filter(isUnknown).map { $0.productID ?? "(none)" })
        return "not in products: " + listed(Array(unknown))
    }

    /// Sorted, deduplicated, at most 10 named (a detail is one line, not a dump).
    private static func listed(_ items: [String]) -> String {
        let sorted = Array(Set(items)).sorted()
        let shown = sorted.prefix(10).joined(separator: ", ")
        return sorted.count > 10 ? "\(shown) and \(sorted.count - 10) more" : shown
    }
}
