extension Purchase {
    /// This purchase with its missing fields taken from `other`, a report of the same purchase by another
    /// of the user's rows. Where both have a value this one wins, so call it on the fresher report.
    public func merging(_ other: Purchase) -> Purchase {
        var fields = self.fields
        let from = other.fields
        if fields.transactionID == nil { fields.transactionID = from.transactionID }
        if fields.originalTransactionID == nil { fields.originalTransactionID = from.originalTransactionID }
        if fields.productID == nil { fields.productID = from.productID }
        if fields.purchaseDate == nil { fields.purchaseDate = from.purchaseDate }
        if fields.originalPurchaseDate == nil { fields.originalPurchaseDate = from.originalPurchaseDate }
        if fields.expiresDate == nil { fields.expiresDate = from.expiresDate }
        if fields.revocation == nil { fields.revocation = from.revocation }
        if fields.ownership == nil { fields.ownership = from.ownership }
        if fields.isUpgraded == nil { fields.isUpgraded = from.isUpgraded }
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
