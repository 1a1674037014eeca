extension VerifyReceiptTransaction {
    /// This transaction with its missing fields taken from `other`, a report of the same
    /// transaction from another part of the response.
    ///
    /// Where both have a value, this one wins, so call it on the fresher report
    /// (`latest_receipt_info` over `in_app`).
    public func merging(_ other: VerifyReceiptTransaction) -> VerifyReceiptTransaction {
        var merged = self
        merged.fillGaps(from: other)
        return merged
    }

    /// `merging(_:)` in place: a field is written only where this report has none, so merging
    /// two copies that agree (the usual case) touches no reference counts.
    mutating func fillGaps(from other: VerifyReceiptTransaction) {
        if productID == nil { productID = other.productID }
        if transactionID == nil { transactionID = other.transactionID }
        if originalTransactionID == nil { originalTransactionID = other.originalTransactionID }
        if quantity == nil { quantity = other.quantity }
        if purchaseDate == nil { purchaseDate = other.purchaseDate }
        if originalPurchaseDate == nil { originalPurchaseDate = other.originalPurchaseDate }
        if expiresDate == nil { expiresDate = other.expiresDate }
        if cancellationDate == nil { cancellationDate = other.cancellationDate }
        if cancellationReason == nil { cancellationReason = other.cancellationReason }
        if isTrialPeriod == nil { isTrialPeriod = other.isTrialPeriod }
        if isInIntroOfferPeriod == nil { isInIntroOfferPeriod = other.isInIntroOfferPeriod }
        if isUpgraded == nil { isUpgraded = other.isUpgraded }
        if webOrderLineItemID == nil { webOrderLineItemID = other.webOrderLineItemID }
        if inAppOwnershipType == nil { inAppOwnershipType = other.inAppOwnershipType }
        if subscriptionGroupIdentifier == nil { subscriptionGroupIdentifier = other.subscriptionGroupIdentifier }
        if promotionalOfferID == nil { promotionalOfferID = other.promotionalOfferID }
        if offerCodeRefName == nil { offerCodeRefName = other.offerCodeRefName }
        if appAccountToken == nil { appAccountToken = other.appAccountToken }
        if itemID == nil { itemID = other.itemID }
        if price == nil { price = other.price }
        if currency == nil { currency = other.currency }
        if storefront == nil { storefront = other.storefront }
        if offerType == nil { offerType = other.offerType }
        if offerDiscountType == nil { offerDiscountType = other.offerDiscountType }
        if transactionReason == nil { transactionReason = other.transactionReason }
        if revocationType == nil { revocationType = other.revocationType }
    }
}
