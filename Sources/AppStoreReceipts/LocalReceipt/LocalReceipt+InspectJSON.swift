import Foundation

extension LocalReceipt {
    /// The JSON object `receipt-recon inspect` prints (CONTRACT §3): keys in the contract's
    /// order, dates as `YYYY-MM-DDTHH:MM:SSZ` UTC (`.SSS` only when there are milliseconds),
    /// absent values as `null`, `quantity` a number, flags booleans, ids strings. In-app entries
    /// appear in stored order. Deterministic: the same receipt always prints the same bytes.
    ///
    /// - Parameter pretty: two-space indentation, one key per line; otherwise one line.
    public func inspectJSON(pretty: Bool = true) -> String {
        inspectObject.rendered(pretty: pretty)
    }

    private var inspectObject: InspectJSON {
        .object([
            "format": .string(format.rawValue),
            "bundle_id": .string(bundleID),
            "environment": .string(environment),
            "application_version": .string(applicationVersion),
            "original_application_version": .string(originalApplicationVersion),
            "creation_date": .date(creationDate),
            "in_app": .array(inApp.map(\.inspectObject)),
        ])
    }
}

extension LocalReceipt.InAppPurchase {
    fileprivate var inspectObject: InspectJSON {
        .object([
            "product_id": .string(productID),
            "transaction_id": .string(transactionID),
            "original_transaction_id": .string(originalTransactionID),
            "purchase_date": .date(purchaseDate),
            "original_purchase_date": .date(originalPurchaseDate),
            "expires_date": .date(expiresDate),
            "cancellation_date": .date(cancellationDate),
            "quantity": .integer(quantity),
            "web_order_line_item_id": .string(webOrderLineItemID),
            "is_trial_period": .boolean(isTrialPeriod),
            "is_in_intro_offer_period": .boolean(isInIntroOfferPeriod),
        ])
    }
}
