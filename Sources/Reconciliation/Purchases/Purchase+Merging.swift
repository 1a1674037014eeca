import Foundation

extension Purchase {
    /// One purchase from two reports of it by the user's rows (CONTRACT §9, "Signed rows"): the report
    /// that speaks for the later instant (`outranks(_:)`) says whether the purchase stands, so its
    /// view of the revocation (present or absent), the expiry and the upgrade wins; a field only the
    /// other report carries (a price, a storefront, a refund's percentage) is taken from it.
    ///
    /// Why not "present beats absent": a stale StoreKit 2 row signed while a refund stood still carries
    /// `revocationDate` after Apple reversed the refund; Apple's fresh answer without one must win. Two
    /// reports of the same instant (two answers of this run) that disagree are not a reversal: the one
    /// carrying the revocation wins, since a report can omit what Apple knows but not invent a refund.
    ///
    /// - Parameters:
    ///   - first: the report that wins any other tie (the caller's order: the newer row's).
    ///   - second: the other report of the same transaction.
    public static func merged(_ first: Purchase, _ second: Purchase) -> Purchase {
        second.outranks(first) ? second.merging(first) : first.merging(second)
    }

    /// Whether this report, rather than `other`, says whether the purchase stands: it speaks for a later
    /// instant, or for the same one and carries a revocation `other` lacks.
    public func outranks(_ other: Purchase) -> Bool {
        if freshness != other.freshness { return freshness > other.freshness }
        return fields.revocation != nil && other.fields.revocation == nil
    }

    /// Whether this report and `other` agree on whether the purchase stands: the same revocation date
    /// (or none), expiry and upgrade.
    public func standsAs(_ other: Purchase) -> Bool {
        fields.revocation?.date == other.fields.revocation?.date && fields.expiresDate == other.fields.expiresDate
            && (fields.isUpgraded ?? false) == (other.fields.isUpgraded ?? false)
    }

    /// The instant this report speaks for. A report without an instant of its own is taken as of when
    /// the job received it: Apple's answer in this run (verifyReceipt, the Server API) as now, a stored
    /// row's signed data as older than anything dated.
    private var freshness: Date {
        fields.evidenceDate ?? (fields.source == .signedRow ? .distantPast : .distantFuture)
    }

    /// This purchase with what only `older`, an earlier report of the same purchase, carries. Whether
    /// the purchase stands is this report's alone: its revocation (or none), expiry and upgrade are kept
    /// even when absent; a revocation both report on the same instant takes the type, reason and
    /// percentage this one lacks. Every other field missing here is taken from `older`.
    public func merging(_ older: Purchase) -> Purchase {
        var fields = self.fields
        let from = older.fields
        if fields.transactionID == nil { fields.transactionID = from.transactionID }
        if fields.originalTransactionID == nil { fields.originalTransactionID = from.originalTransactionID }
        if fields.productID == nil { fields.productID = from.productID }
        if fields.purchaseDate == nil { fields.purchaseDate = from.purchaseDate }
        if fields.originalPurchaseDate == nil { fields.originalPurchaseDate = from.originalPurchaseDate }
        if var revocation = fields.revocation, let earlier = from.revocation, earlier.date == revocation.date {
            if revocation.reason == nil { revocation.reason = earlier.reason }
            if revocation.type == nil { revocation.type = earlier.type }
            if revocation.percentageMilliunits == nil { revocation.percentageMilliunits = earlier.percentageMilliunits }
            fields.revocation = revocation
        }
        if fields.ownership == nil { fields.ownership = from.ownership }
        if fields.offer.isTrial == nil { fields.offer.isTrial = from.offer.isTrial }
        if fields.offer.isIntroOffer == nil { fields.offer.isIntroOffer = from.offer.isIntroOffer }
        if fields.offer.type == nil { fields.offer.type = from.offer.type }
        if fields.offer.discountType == nil { fields.offer.discountType = from.offer.discountType }
        if fields.price == nil { fields.price = from.price }
        if fields.currency == nil { fields.currency = from.currency }
        if fields.storefront == nil { fields.storefront = from.storefront }
        if fields.transactionReason == nil { fields.transactionReason = from.transactionReason }
        if fields.quantity == nil { fields.quantity = from.quantity }
        if fields.webOrderLineItemID == nil { fields.webOrderLineItemID = from.webOrderLineItemID }
        if fields.environment == nil { fields.environment = from.environment }
        if fields.evidenceDate == nil { fields.evidenceDate = from.evidenceDate }
        return Purchase(fields)
    }
}
