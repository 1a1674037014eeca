import AppStoreReceipts

/// A user's truth (rules.md, "Truth") from the transactions of the receipts and signed rows that count,
/// and how an expiry compares with a row's.
extension ExpectationDeriver {
    /// Apple's truth for one entitlement: active with this expiry (nil: never expires).
    struct Truth: Hashable {
        var expiresMs: Int64?
    }

    /// "Truth per entitlement": only active entitlements are returned.
    ///
    /// - auto-renewable: active while any of its chains (original transaction id) is: the chain's latest
    ///   expiry over its non-upgraded, non-revoked periods is after `asOf`, or else the chain is in its
    ///   billing grace period (`gracePeriodExpiresMs` after `asOf`, which the world sets only with billing
    ///   retry: Server API status 4). The expiry is the latest end over the active chains, a grace end
    ///   counting as its chain's end.
    /// - non-consumable: any purchase not revoked; non-renewing: purchase + duration; consumable: nothing.
    /// - A revoked purchase counts as never purchased; an upgraded one grants nothing itself.
    /// - Apple may answer after `asOf` (a user a night reaches hours in): a purchase, a revocation or an
    ///   upgrade dated after `asOf` has not happened yet.
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

        var chains: [String: [String: Int64]] = [:]  // entitlement → original transaction id → latest expiry
        var nonConsumable = Set<String>()
        var nonRenewing: [String: Int64] = [:]
        for view in transactions {
            // An upgrade is dated by its cancellation (`WorldTransaction.view`), as Apple dates it.
            guard view.transaction.purchaseMs <= asOf, (view.cancellationMs ?? .max) > asOf,
                let product = WorldCatalog.tableProduct(view.transaction.productID),
                let entitlement = product.entitlement
            else { continue }
            let transaction = view.transaction
            switch product.kind {
            case .autoRenewable:
                let expiry = transaction.expiresMs ?? .min
                chains[entitlement, default: [:]][transaction.originalTransactionID] = max(
                    chains[entitlement]?[transaction.originalTransactionID] ?? .min, expiry)
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
        for (entitlement, latest) in chains {
            var end: Int64?
            for (original, expiry) in latest {
                let chainEnd: Int64?
                if expiry > asOf {
                    chainEnd = expiry
                } else if let grace = renewals[original]?.gracePeriodExpiresMs, grace > asOf {
                    chainEnd = grace
                } else {
                    chainEnd = nil
                }
                if let chainEnd { end = max(end ?? .min, chainEnd) }
            }
            if let end { truth[entitlement] = Truth(expiresMs: end) }
        }
        for entitlement in nonConsumable { truth[entitlement] = Truth(expiresMs: nil) }
        for (entitlement, ends) in nonRenewing where ends > asOf { truth[entitlement] = Truth(expiresMs: ends) }
        return truth
    }

    /// The truth a run may act on when signed rows count: for each of `entitlements`, a signed row is
    /// evidence only when its `signedDate` is later than the app's row for that entitlement was updated
    /// (`updated`, absent: no row). An older JWS never grants or extends what the app changed after it
    /// was signed (CONTRACT §9, "Signed rows").
    static func truth(
        _ answers: [AppleAnswer], signed: [SignedEvidence], asOf: Int64, entitlements: [String],
        updated: [String: Int64]
    ) -> [String: Truth] {
        let all = truth(answers, signed: signed.map(\.view), asOf: asOf)
        guard !signed.isEmpty else { return all }
        var result: [String: Truth] = [:]
        for entitlement in entitlements {
            let fresh = signed.filter { evidence in
                guard let row = updated[entitlement],
                    WorldCatalog.tableProduct(evidence.view.transaction.productID)?.entitlement == entitlement
                else { return true }
                return evidence.signedMs > row
            }
            let truth = fresh.count == signed.count ? all : self.truth(answers, signed: fresh.map(\.view), asOf: asOf)
            result[entitlement] = truth[entitlement]
        }
        return result
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
