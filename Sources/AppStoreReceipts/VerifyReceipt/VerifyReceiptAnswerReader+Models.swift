import Foundation

/// The models built from the members the reader kept: which key feeds which field, and in which
/// spelling it is read (`AppleJSONFieldValue`).
extension VerifyReceiptAnswerReader {
    func response(_ members: Members) throws(VerifyReceiptDecodingError) -> VerifyReceiptResponse {
        guard let (kind, code) = field(.status, in: members, { ($0.kind, $0.int) }), kind != .null else {
            throw .missingStatus
        }
        guard let code else { throw .statusNotANumber }
        var pendingRenewalInfo = pendingRenewalInfo
        if pendingRenewalInfo.isEmpty {
            var topLevel = renewal(members)
            if !topLevel.isEmpty {
                // iOS 6: the renewal fields describe the receipt's own subscription.
                let purchase = receipt?.transaction ?? latestExpiredReceiptInfo.first
                topLevel.originalTransactionID = topLevel.originalTransactionID ?? purchase?.originalTransactionID
                topLevel.productID = topLevel.productID ?? purchase?.productID
                pendingRenewalInfo = [topLevel]
            }
        }
        return VerifyReceiptResponse(
            rawStatus: code,
            rawEnvironment: string(.environment, members),
            receipt: receipt,
            latestReceipt: keepingLatestReceipt ? string(.latestReceipt, members) : nil,
            latestReceiptInfo: latestReceiptInfo,
            latestExpiredReceiptInfo: latestExpiredReceiptInfo,
            pendingRenewalInfo: pendingRenewalInfo,
            isRetryable: bool(.isRetryable, members) ?? bool(.isRetryableHyphenated, members)
        )
    }

    func decodedReceipt(_ members: Members, inApp: [VerifyReceiptTransaction]) -> VerifyReceiptDecodedReceipt {
        // `bid` only exists in transaction receipts; a flat `transaction_id` without `in_app`
        // is the same shape with `bid` missing.
        let isTransactionReceipt =
            holds(.bid, in: members) || (!holds(.inApp, in: members) && holds(.transactionID, in: members))
        return VerifyReceiptDecodedReceipt(
            format: isTransactionReceipt ? .transactionReceipt : .appReceipt,
            receiptType: string(.receiptType, members),
            bundleID: string(.bundleID, members) ?? string(.bid, members),
            applicationVersion: string(.applicationVersion, members) ?? string(.bvrs, members),
            originalApplicationVersion: string(.originalApplicationVersion, members),
            receiptCreationDate: date(.receiptCreationDateMilliseconds, .receiptCreationDate, members),
            requestDate: date(.requestDateMilliseconds, .requestDate, members),
            originalPurchaseDate: date(.originalPurchaseDateMilliseconds, .originalPurchaseDate, members),
            expirationDate: date(.expirationDateMilliseconds, .expirationDate, members),
            appItemID: string(.appItemID, members) ?? string(.adamID, members),
            downloadID: string(.downloadID, members),
            versionExternalIdentifier: string(.versionExternalIdentifier, members),
            inApp: inApp,
            // The same object read a second time, as a purchase.
            transaction: isTransactionReceipt ? transaction(members) : nil
        )
    }

    func transaction(_ members: Members) -> VerifyReceiptTransaction {
        VerifyReceiptTransaction(
            productID: string(.productID, members),
            transactionID: string(.transactionID, members),
            originalTransactionID: string(.originalTransactionID, members),
            quantity: int(.quantity, members),
            purchaseDate: date(.purchaseDateMilliseconds, .purchaseDate, members),
            originalPurchaseDate: date(.originalPurchaseDateMilliseconds, .originalPurchaseDate, members),
            expiresDate: date(.expiresDateMilliseconds, .expiresDate, members, or: .expiresDateFormatted),
            cancellationDate: date(.cancellationDateMilliseconds, .cancellationDate, members),
            cancellationReason: int(.cancellationReason, members),
            isTrialPeriod: bool(.isTrialPeriod, members),
            isInIntroOfferPeriod: bool(.isInIntroOfferPeriod, members),
            isUpgraded: bool(.isUpgraded, members),
            webOrderLineItemID: string(.webOrderLineItemID, members),
            inAppOwnershipType: string(.inAppOwnershipType, members),
            subscriptionGroupIdentifier: string(.subscriptionGroupIdentifier, members),
            promotionalOfferID: string(.promotionalOfferID, members),
            offerCodeRefName: string(.offerCodeRefName, members),
            appAccountToken: string(.appAccountToken, members),
            itemID: string(.itemID, members)
        )
    }

    /// An element of `pending_renewal_info`, or the top level of an iOS 6 response, which carries the
    /// same keys unnested.
    func renewal(_ members: Members) -> VerifyReceiptPendingRenewalInfo {
        VerifyReceiptPendingRenewalInfo(
            autoRenewProductID: string(.autoRenewProductID, members),
            autoRenewStatus: int(.autoRenewStatus, members),
            expirationIntent: int(.expirationIntent, members),
            isInBillingRetryPeriod: bool(.isInBillingRetryPeriod, members),
            gracePeriodExpiresDate: date(.gracePeriodExpiresDateMilliseconds, .gracePeriodExpiresDate, members),
            originalTransactionID: string(.originalTransactionID, members),
            productID: string(.productID, members),
            priceConsentStatus: int(.priceConsentStatus, members)
        )
    }

    // MARK: - Lenient readers

    private func string(_ key: VerifyReceiptAnswerKey, _ members: Members) -> String? {
        field(key, in: members) { $0.string }
    }

    private func int(_ key: VerifyReceiptAnswerKey, _ members: Members) -> Int? {
        field(key, in: members) { $0.int }
    }

    private func bool(_ key: VerifyReceiptAnswerKey, _ members: Members) -> Bool? {
        field(key, in: members) { $0.bool }
    }

    /// A date, preferring the milliseconds key, then the text key, then `alternative` (which may also
    /// hold milliseconds, as iOS 6 `expires_date` does).
    private func date(
        _ millisecondsKey: VerifyReceiptAnswerKey, _ textKey: VerifyReceiptAnswerKey, _ members: Members,
        or alternative: VerifyReceiptAnswerKey? = nil
    ) -> Date? {
        if let date = field(millisecondsKey, in: members, { $0.millisecondsDate }) { return date }
        if let date = field(textKey, in: members, { $0.textDate }) { return date }
        return alternative.flatMap { field($0, in: members) { $0.textDate } }
    }
}
