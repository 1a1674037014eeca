import AppStoreReceipts

/// A user's truth (CONTRACT §5, "Truth per entitlement") from the transactions of the receipts and
/// signed rows that count, and how an expiry compares with a row's.
extension ExpectationDeriver {
    /// Apple's truth for one entitlement: active with this expiry (nil: never expires).
    struct Truth: Hashable {
        var expiresMs: Int64?
    }

    /// "Truth per entitlement": only active entitlements are returned.
    ///
    /// - Parameter signed: the transactions of counting StoreKit 2 rows, each as it was at its
    ///   `signedDate`; they count like answered ones, with no renewal info (so no grace period).
    static func truth(_ answers: [AppleAnswer], signed: [WorldTransaction.View] = [], asOf: Int64) -> [String: Truth] {
        // The user's transactions: the union over counting receipts, deduplicated by transaction_id; an
        // answer is Apple's state at asOf, so it wins over a signed row's older view of the same one.
        var seen = Set<String>()
        var transactions: [WorldTransaction.View] = []
        var renewals: [String: WorldAccount.RenewalInfo] = [:]
        for answer in answers {
            for view in answer.transactions where seen.insert(view.transaction.transactionID).inserted {
                transactions.append(view)
            }
            for renewal in answer.pendingRenewalInfo ?? [] { renewals[renewal.originalTransactionID] = renewal }
        }
        for view in signed where seen.insert(view.transaction.transactionID).inserted {
            transactions.append(view)
        }

        var autoRenewable: [String: WorldTransaction] = [:]  // entitlement → winning (latest expiry) transaction
        var nonConsumable = Set<String>()
        var nonRenewing: [String: Int64] = [:]
        for view in transactions {
            // A refund counts as never purchased; an upgraded period grants nothing by itself.
            guard !view.isUpgraded, view.cancellationMs == nil,
                let product = WorldCatalog.tableProduct(view.transaction.productID),
                let entitlement = product.entitlement
            else { continue }
            let transaction = view.transaction
            switch product.kind {
            case .autoRenewable:
                if let current = autoRenewable[entitlement], (current.expiresMs ?? 0) >= (transaction.expiresMs ?? 0) {
                    continue
                }
                autoRenewable[entitlement] = transaction
            case .nonConsumable:
                nonConsumable.insert(entitlement)
            case .nonRenewing:
                let ends = transaction.purchaseMs + Int64(product.durationDays!) * SubscriptionClock.millisecondsPerDay
                nonRenewing[entitlement] = max(nonRenewing[entitlement] ?? .min, ends)
            case .consumable:
                continue
            }
        }

        var truth: [String: Truth] = [:]
        for (entitlement, winner) in autoRenewable {
            let expiry = winner.expiresMs ?? .min
            if expiry > asOf {
                truth[entitlement] = Truth(expiresMs: expiry)
            } else if let grace = renewals[winner.originalTransactionID]?.gracePeriodExpiresMs, grace > asOf {
                truth[entitlement] = Truth(expiresMs: grace)
            }
        }
        for entitlement in nonConsumable { truth[entitlement] = Truth(expiresMs: nil) }
        for (entitlement, ends) in nonRenewing where ends > asOf { truth[entitlement] = Truth(expiresMs: ends) }
        return truth
    }

    enum Comparison { case earlier, same, later }

    /// Apple's expiry against the row's, at millisecond precision; nil is later than any instant.
    static func compare(_ apple: Int64?, _ row: Int64?) -> Comparison {
        switch (apple, row) {
        case (nil, nil): .same
        case (nil, _): .later
        case (_, nil): .earlier
        case (let apple?, let row?): apple > row ? .later : (apple < row ? .earlier : .same)
        }
    }
}
