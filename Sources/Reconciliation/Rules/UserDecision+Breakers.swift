import Foundation

/// What the circuit breakers learn from one decided user (CONTRACT §7), from the same rules that flag it.
extension UserDecision.Verified {
    /// Receipts left `unverified` for a cause that asking again may change: the unverified judge counts
    /// these only (a permanent one is Apple's answer).
    public var transientlyUnverifiedReceipts: Int {
        receipts.count { $0.classification.unverified == .transient }
    }

    /// Why the first transiently unverified receipt was left so, without the kind's explanation.
    public var transientCause: String? {
        let suffix = " (\(UnverifiedKind.transient.explanation))"
        guard let receipt = receipts.first(where: { $0.classification.unverified == .transient }) else { return nil }
        let detail = receipt.classification.detail
        return detail.hasSuffix(suffix) ? String(detail.dropLast(suffix.count)) : detail
    }

    /// Receipts left `unverified` that asking again will not change (flagged, counted apart).
    public var permanentlyUnverifiedReceipts: Int {
        receipts.count { $0.classification.unverified == .permanent }
    }

    /// Per receipt that Apple answered for and that names a product `products` lacks, those product ids:
    /// what the unknown-products judge counts (the receipts `unknown_product` flags).
    public func unknownProductIDs(catalog: ProductCatalog) -> [[String]] {
        receipts.compactMap { receipt in
            guard receipt.outcome == .valid || receipt.outcome == .misrouted else { return nil }
            let unknown = FlagRule.unknownProductIDs(receipt.purchases, catalog: catalog)
            return unknown.isEmpty ? nil : unknown
        }
    }
}

extension FlagRule {
    /// The product ids of `purchases` that `products` does not hold, each once, sorted (`(none)` for a
    /// purchase without one).
    public static func unknownProductIDs(_ purchases: [Purchase], catalog: ProductCatalog) -> [String] {
        // Nearly every product is known: nothing is built unless one is not.
        guard purchases.contains(where: { !catalog.contains($0.productID) }) else { return [] }
        return Set(purchases.filter { !catalog.contains($0.productID) }.map { $0.productID ?? "(none)" }).sorted()
    }
}
