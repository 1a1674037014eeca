extension VerifyReceiptTransaction {
    /// A signed transaction in the shape the reconciliation rules read, so signed data and
    /// verifyReceipt answers feed one set of rules: `revocationDate` is the refund
    /// (`cancellation_date`), an introductory free trial is `is_trial_period`, any other introductory
    /// offer `is_in_intro_offer_period`. The finance fields are copied as sent (price in milliunits,
    /// coded values as their raw values) so a value Apple adds later still reaches the export.
    public init(_ signed: SignedTransaction) {
        let introductory = signed.offerType == .introductory
        let freeTrial = introductory && signed.offerDiscountType == .freeTrial
        self.init(
            productID: signed.productID,
            transactionID: signed.transactionID,
            originalTransactionID: signed.originalTransactionID,
            quantity: signed.quantity,
            purchaseDate: signed.purchaseDate,
            originalPurchaseDate: signed.originalPurchaseDate,
            expiresDate: signed.expiresDate,
            cancellationDate: signed.revocationDate,
            cancellationReason: signed.revocationReason?.rawValue,
            isTrialPeriod: freeTrial,
            isInIntroOfferPeriod: introductory && !freeTrial,
            isUpgraded: signed.isUpgraded,
            webOrderLineItemID: signed.webOrderLineItemID,
            inAppOwnershipType: signed.inAppOwnershipType?.rawValue,
            subscriptionGroupIdentifier: signed.subscriptionGroupIdentifier,
            promotionalOfferID: signed.offerType == .promotional ? signed.offerIdentifier : nil,
            offerCodeRefName: signed.offerType == .offerCode ? signed.offerIdentifier : nil,
            appAccountToken: signed.appAccountToken,
            price: signed.price,
            currency: signed.currency,
            storefront: signed.storefront,
            offerType: signed.offerType?.rawValue,
            offerDiscountType: signed.offerDiscountType?.rawValue,
            transactionReason: signed.transactionReason?.rawValue,
            revocationType: signed.revocationType?.rawValue)
    }
}

extension VerifyReceiptPendingRenewalInfo {
    /// Signed renewal info in the shape the rules read (grace periods, renewal intent).
    public init(_ signed: SignedRenewalInfo) {
        self.init(
            autoRenewProductID: signed.autoRenewProductID,
            autoRenewStatus: signed.autoRenewStatus?.rawValue,
            expirationIntent: signed.expirationIntent?.rawValue,
            isInBillingRetryPeriod: signed.isInBillingRetryPeriod,
            gracePeriodExpiresDate: signed.gracePeriodExpiresDate,
            originalTransactionID: signed.originalTransactionID,
            productID: signed.productID,
            priceConsentStatus: signed.priceIncreaseStatus?.rawValue)
    }
}
