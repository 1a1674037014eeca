extension VerifyReceiptTransaction {
    /// This transaction with its missing fields taken from `other`, a report of the same
    /// transaction from another part of the response.
    ///
    /// Where both have a value, this one wins, so call it on the fresher report
    /// (`latest_receipt_info` over `in_app`).
    public func merging(_ other: VerifyReceiptTransaction) -> VerifyReceiptTransaction {
        VerifyReceiptTransaction(
            productID: productID ?? other.productID,
            transactionID: transactionID ?? other.transactionID,
            originalTransactionID: originalTransactionID ?? other.originalTransactionID,
            quantity: quantity ?? other.quantity,
            purchaseDate: purchaseDate ?? other.purchaseDate,
            originalPurchaseDate: originalPurchaseDate ?? other.originalPurchaseDate,
            expiresDate: expiresDate ?? other.expiresDate,
            cancellationDate: cancellationDate ?? other.cancellationDate,
            cancellationReason: cancellationReason ?? other.cancellationReason,
            isTrialPeriod: isTrialPeriod ?? other.isTrialPeriod,
            isInIntroOfferPeriod: isInIntroOfferPeriod ?? other.isInIntroOfferPeriod,
            isUpgraded: isUpgraded ?? other.isUpgraded,
            webOrderLineItemID: webOrderLineItemID ?? other.webOrderLineItemID,
            inAppOwnershipType: inAppOwnershipType ?? other.inAppOwnershipType,
            subscriptionGroupIdentifier: subscriptionGroupIdentifier ?? other.subscriptionGroupIdentifier,
            promotionalOfferID: promotionalOfferID ?? other.promotionalOfferID,
            offerCodeRefName: offerCodeRefName ?? other.offerCodeRefName,
            appAccountToken: appAccountToken ?? other.appAccountToken,
            itemID: itemID ?? other.itemID
        )
    }
}
