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
        receipts.count { $0.classification.unverified?.isPermanent == true }
    }

    /// Per receipt flagged `unknown_product`, the product ids `products` lacks: what the unknown-products
    /// judge counts, read from the flags `decide` already made (one rule, applied once).
    public var unknownProductIDs: [[String]] {
        receiptFlags.compactMap { flag in
            guard flag.kind == .unknownProduct else { return nil }
            return flag.evidence?.productIDs ?? []
        }
    }
}
