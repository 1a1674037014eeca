import Foundation

/// The flags of docs/reconciliation-rules.md ("Receipt outcomes" and the lists below it): one
/// per receipt per kind per run, or per user where no receipt applies.
public enum FlagRule {
    /// Every receipt flag of a user's receipts, ordered by receipt id, then kind
    /// (`FlagKind.allCases` order).
    ///
    /// The flags that need other users' rows are decided at the end of the run, over the whole run,
    /// by `RunFinalizer`: `shared_transaction` (one original transaction on receipts of two or more
    /// users) and `entitlement_without_receipt` (an active row and no receipt at all).
    ///
    /// A revocation a fresher report of the same transaction by another row no longer carries (a stale
    /// signed row's refund Apple reversed since) is not flagged (`Purchase.merged`).
    public static func receiptFlags(_ receipts: [UserReceipt], catalog: ProductCatalog, asOf: Date) -> [PlannedFlag] {
        let overruled = overruledRevocations(receipts)
        return receipts.flatMap { receiptFlags($0, catalog: catalog, asOf: asOf, overruled: overruled) }
            .sorted(by: PlannedFlag.ordered)
    }

    /// The transaction ids whose freshest report among the rows Apple's answers count (`valid`,
    /// `misrouted`) carries no revocation while an older one does. Empty in the usual case of one row,
    /// or no revocation at all.
    static func overruledRevocations(_ receipts: [UserReceipt]) -> Set<String> {
        let answered = receipts.filter { $0.outcome == .valid || $0.outcome == .misrouted }
        guard answered.count > 1, answered.contains(where: { $0.purchases.contains { $0.revocation != nil } })
        else { return [] }
        var freshest: [String: Purchase] = [:]
        var revokedSomewhere: Set<String> = []
        for receipt in answered {
            for purchase in receipt.purchases {
                guard let id = purchase.transactionID else { continue }
                if purchase.revocation != nil { revokedSomewhere.insert(id) }
                if let kept = freshest[id], !purchase.outranks(kept) { continue }
                freshest[id] = purchase
            }
        }
        return revokedSomewhere.filter { freshest[$0]?.revocation == nil }
    }

    /// One receipt's flags: the outcome's own flag (`invalid_receipt`, `bundle_mismatch`,
    /// `sandbox_in_production`, `production_in_sandbox`, `unverified`), and for `valid` and
    /// `misrouted` receipts `refunded`, `family_revoked` and `unknown_product`.
    public static func receiptFlags(
        _ receipt: UserReceipt, catalog: ProductCatalog, asOf: Date, overruled: Set<String> = []
    ) -> [PlannedFlag] {
        var flags: [PlannedFlag] = []
        if let kind = receipt.classification.outcomeFlag {
            flags.append(
                PlannedFlag(
                    kind: kind, receiptID: receipt.receiptID, detail: receipt.classification.detail,
                    evidence: .receiptFlag(kind, receipt: receipt, asOf: asOf)))
        }
        guard receipt.outcome == .valid || receipt.outcome == .misrouted else { return flags }
        let id = receipt.receiptID
        let stands = { (purchase: Purchase) in overruled.isEmpty || !overruled.contains(purchase.transactionID ?? "") }
        if let flag = revocationFlag(
            .refunded, "refunded: ", receipt, asOf: asOf, { $0.isRefunded(asOf: asOf) && stands($0) })
        {
            flags.append(flag)
        }
        if let flag = revocationFlag(
            .familyRevoked, "Family Sharing revoked: ", receipt, asOf: asOf,
            { $0.isRevoked(asOf: asOf) && $0.isFamilyRevocation && stands($0) })
        {
            flags.append(flag)
        }
        let unknown = unknownProductIDs(receipt.purchases, catalog: catalog)
        if !unknown.isEmpty {
            flags.append(
                PlannedFlag(
                    kind: .unknownProduct, receiptID: id, detail: "not in products: " + listed(unknown),
                    evidence: .receiptFlag(.unknownProduct, receipt: receipt, productIDs: unknown, asOf: asOf)))
        }
        return flags.sorted(by: PlannedFlag.ordered)
    }

    /// `refunded`: a purchase of the receipt was refunded by `asOf` (revoked, not an upgrade, not a
    /// Family Sharing revocation).
    /// - Returns: the flag's detail, or nil when no purchase was refunded.
    public static func refundedRule(_ purchases: [Purchase], asOf: Date) -> String? {
        revokedRule(purchases, "refunded: ") { $0.isRefunded(asOf: asOf) }
    }

    /// `family_revoked`: Family Sharing ended for a purchase of the receipt by `asOf`.
    public static func familyRevokedRule(_ purchases: [Purchase], asOf: Date) -> String? {
        revokedRule(purchases, "Family Sharing revoked: ") { $0.isRevoked(asOf: asOf) && $0.isFamilyRevocation }
    }

    /// A revocation flag naming the purchases of `receipt` that `matches` picks; nil when none does.
    private static func revocationFlag(
        _ kind: FlagKind, _ label: String, _ receipt: UserReceipt, asOf: Date, _ matches: (Purchase) -> Bool
    ) -> PlannedFlag? {
        // Most receipts have no revocation: nothing is built for them.
        guard receipt.purchases.contains(where: matches) else { return nil }
        let revoked = receipt.purchases.filter(matches)
        return PlannedFlag(
            kind: kind, receiptID: receipt.receiptID, detail: revokedDetail(revoked, label),
            evidence: .receiptFlag(kind, receipt: receipt, purchases: revoked, asOf: asOf))
    }

    private static func revokedRule(_ purchases: [Purchase], _ label: String, _ matches: (Purchase) -> Bool)
        -> String?
    {
        guard purchases.contains(where: matches) else { return nil }
        return revokedDetail(purchases.filter(matches), label)
    }

    private static func revokedDetail(_ revoked: [Purchase], _ label: String) -> String {
        label + listed(revoked.map { "\($0.transactionID ?? "?") (\($0.productID ?? "no product id"))" })
    }

    /// `unknown_product`: a purchase's product id is not in `products` (a missing one is not in
    /// `products` either).
    public static func unknownProductRule(_ purchases: [Purchase], catalog: ProductCatalog) -> String? {
        let unknown = unknownProductIDs(purchases, catalog: catalog)
        return unknown.isEmpty ? nil : "not in products: " + listed(unknown)
    }

    /// The product ids of `purchases` that `products` does not hold, each once, sorted (`(none)` for a
    /// purchase without one).
    public static func unknownProductIDs(_ purchases: [Purchase], catalog: ProductCatalog) -> [String] {
        // Nearly every product is known: nothing is built unless one is not. A user's purchases repeat a
        // product or two, renewal after renewal: an id equal to the one just found known is not hashed
        // into the catalog again.
        var lastKnown: String?
        let anyUnknown = purchases.contains { purchase in
            guard let productID = purchase.productID else { return true }
            if productID == lastKnown { return false }
            guard catalog.contains(productID) else { return true }
            lastKnown = productID
            return false
        }
        guard anyUnknown else { return [] }
        return Set(purchases.filter { !catalog.contains($0.productID) }.map { $0.productID ?? "(none)" }).sorted()
    }

    /// Sorted, deduplicated, at most 10 named (a detail is one line, not a dump).
    private static func listed(_ items: [String]) -> String {
        let sorted = Array(Set(items)).sorted()
        let shown = sorted.prefix(10).joined(separator: ", ")
        return sorted.count > 10 ? "\(shown) and \(sorted.count - 10) more" : shown
    }
}
