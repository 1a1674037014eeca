extension SignedRenewalInfo {
    /// The `payload` object of `receipt-recon inspect`, shaped like `SignedTransaction`'s:
    /// `renewalPrice` as a decimal in units of `currency`.
    package var inspectObject: InspectJSON {
        .object([
            "originalTransactionId": .string(originalTransactionID),
            "productId": .string(productID),
            "autoRenewProductId": .string(autoRenewProductID),
            "autoRenewStatus": .integer(autoRenewStatus?.rawValue),
            "expirationIntent": .integer(expirationIntent?.rawValue),
            "isInBillingRetryPeriod": .boolean(isInBillingRetryPeriod),
            "gracePeriodExpiresDate": .date(gracePeriodExpiresDate),
            "priceIncreaseStatus": .integer(priceIncreaseStatus?.rawValue),
            "renewalDate": .date(renewalDate),
            "renewalPrice": .decimal(renewalPriceAmount),
            "currency": .string(currency),
            "recentSubscriptionStartDate": .date(recentSubscriptionStartDate),
            "offerType": .integer(offerType?.rawValue),
            "offerIdentifier": .string(offerIdentifier),
            "offerDiscountType": .string(offerDiscountType?.rawValue),
            "offerPeriod": .string(offerPeriod),
            "eligibleWinBackOfferIds": eligibleWinBackOfferIDs.map { .array($0.map(InspectJSON.string)) } ?? .null,
            "environment": .string(environment?.rawValue),
            "signedDate": .date(signedDate),
            "appAccountToken": .string(appAccountToken),
            "appTransactionId": .string(appTransactionID),
        ])
    }
}
