extension SignedNotification {
    /// The `payload` object of `receipt-recon inspect`, shaped like `SignedTransaction`'s, with
    /// all four parts (`null` when absent).
    ///
    /// The nested JWS are not printed as they came: `nested` receives each one
    /// (`data.signedTransactionInfo`, `data.signedRenewalInfo`,
    /// `appData.signedAppTransactionInfo`) and returns what to print in its place, the inspect
    /// object of its verified payload. Absent nested data prints `null` without a call.
    package func inspectObject(nested: (String) -> InspectJSON) -> InspectJSON {
        .object([
            "notificationType": .string(notificationType?.rawValue),
            "subtype": .string(subtype?.rawValue),
            "notificationUUID": .string(notificationUUID),
            "version": .string(version),
            "signedDate": .date(signedDate),
            "data": data.map { $0.inspectObject(nested: nested) } ?? .null,
            "summary": summary?.inspectObject ?? .null,
            "externalPurchaseToken": externalPurchaseToken?.inspectObject ?? .null,
            "appData": appData.map { $0.inspectObject(nested: nested) } ?? .null,
        ])
    }
}

extension SignedNotification.NotificationData {
    fileprivate func inspectObject(nested: (String) -> InspectJSON) -> InspectJSON {
        .object([
            "environment": .string(environment?.rawValue),
            "appAppleId": .integer(appAppleID),
            "bundleId": .string(bundleID),
            "bundleVersion": .string(bundleVersion),
            "signedTransactionInfo": signedTransactionInfo.map(nested) ?? .null,
            "signedRenewalInfo": signedRenewalInfo.map(nested) ?? .null,
            "status": .integer(status?.rawValue),
            "consumptionRequestReason": .string(consumptionRequestReason?.rawValue),
        ])
    }
}

extension SignedNotification.Summary {
    fileprivate var inspectObject: InspectJSON {
        .object([
            "requestIdentifier": .string(requestIdentifier),
            "environment": .string(environment?.rawValue),
            "appAppleId": .integer(appAppleID),
            "bundleId": .string(bundleID),
            "productId": .string(productID),
            "storefrontCountryCodes": storefrontCountryCodes.map { .array($0.map(InspectJSON.string)) } ?? .null,
            "failedCount": .integer(failedCount),
            "succeededCount": .integer(succeededCount),
        ])
    }
}

extension SignedNotification.ExternalPurchaseToken {
    fileprivate var inspectObject: InspectJSON {
        .object([
            "externalPurchaseId": .string(externalPurchaseID),
            "tokenCreationDate": .date(tokenCreationDate),
            "appAppleId": .integer(appAppleID),
            "bundleId": .string(bundleID),
        ])
    }
}

extension SignedNotification.AppData {
    fileprivate func inspectObject(nested: (String) -> InspectJSON) -> InspectJSON {
        .object([
            "appAppleId": .integer(appAppleID),
            "bundleId": .string(bundleID),
            "environment": .string(environment?.rawValue),
            "signedAppTransactionInfo": signedAppTransactionInfo.map(nested) ?? .null,
        ])
    }
}
