extension SignedAppTransaction {
    /// The `payload` object of `receipt-recon inspect`, shaped like `SignedTransaction`'s.
    package var inspectObject: InspectJSON {
        let object: InspectJSON = .object([
            "receiptType": .string(receiptType?.rawValue),
            "appAppleId": .integer(appAppleID),
            "bundleId": .string(bundleID),
            "applicationVersion": .string(applicationVersion),
            "versionExternalIdentifier": .integer(versionExternalIdentifier),
            "receiptCreationDate": .date(receiptCreationDate),
            "originalPurchaseDate": .date(originalPurchaseDate),
            "originalApplicationVersion": .string(originalApplicationVersion),
            "deviceVerification": .string(deviceVerification),
            "deviceVerificationNonce": .string(deviceVerificationNonce),
            "preorderDate": .date(preorderDate),
            "appTransactionId": .string(appTransactionID),
            "originalPlatform": .string(originalPlatform?.rawValue),
        ])
        // Only when present: Apple's app transactions have carried the instant as `receiptCreationDate`.
        guard let signedDate, case .object(let members) = object else { return object }
        return .object(members + [InspectJSON.Member("signedDate", .date(signedDate))])
    }
}
