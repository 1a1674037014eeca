extension SignedTransaction {
    /// The `payload` object of `receipt-recon inspect` (CONTRACT §3): Apple's field names in the
    /// order of research/server-api.md §6, dates as ISO 8601 UTC, `price` as a decimal in units
    /// of `currency` (Apple's milliunits converted), coded values as Apple's raw values, absent
    /// fields as `null`.
    package var inspectObject: InspectJSON {
        .object([
            "transactionId": .string(transactionID),
            "originalTransactionId": .string(originalTransactionID),
            "webOrderLineItemId": .string(webOrderLineItemID),
            "bundleId": .string(bundleID),
            "productId": .string(productID),
            "subscriptionGroupIdentifier": .string(subscriptionGroupIdentifier),
            "purchaseDate": .date(purchaseDate),
            "originalPurchaseDate": .date(originalPurchaseDate),
            "expiresDate": .date(expiresDate),
            "quantity": .integer(quantity),
            "type": .string(type?.rawValue),
            "inAppOwnershipType": .string(inAppOwnershipType?.rawValue),
            "signedDate": .date(signedDate),
            "revocationDate": .date(revocationDate),
            "revocationReason": .integer(revocationReason?.rawValue),
            "revocationType": .string(revocationType?.rawValue),
            "revocationPercentage": .integer(revocationPercentage),
            "isUpgraded": .boolean(isUpgraded),
            "offerType": .integer(offerType?.rawValue),
            "offerIdentifier": .string(offerIdentifier),
            "offerDiscountType": .string(offerDiscountType?.rawValue),
            "offerPeriod": .string(offerPeriod),
            "environment": .string(environment?.rawValue),
            "storefront": .string(storefront),
            "storefrontId": .string(storefrontID),
            "transactionReason": .string(transactionReason?.rawValue),
            "price": .decimal(priceAmount),
            "currency": .string(currency),
            "appAccountToken": .string(appAccountToken),
            "appTransactionId": .string(appTransactionID),
        ])
    }
}
