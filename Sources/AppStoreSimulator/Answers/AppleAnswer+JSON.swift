import AppStoreReceipts

/// Apple's JSON for an answer, in the shapes of verifyreceipt.md §3 and the conformance responses:
/// strings for almost every number, date triples (`x`, `x_ms`, `x_pst`), numbers only for `status`,
/// `adam_id`, `app_item_id`, `download_id`, `version_external_identifier` and iOS 6's top-level
/// `auto_renew_status`; `latest_receipt_info` an array for app receipts and an object for iOS 6 ones.
extension AppleAnswer {
    /// The response body.
    public var jsonBytes: [UInt8] {
        var json = AppleJSONWriter(
            capacity: 1024 + 700 * ((receipt?.inApp.count ?? 0) + (latestReceiptInfo?.count ?? 0))
                + (latestReceipt?.utf8.count ?? 0))
        json.beginObject()
        if let environment { json.member("environment", literal: environment == .sandbox ? "Sandbox" : "Production") }
        if let transactionReceipt {
            writeTransactionReceiptAnswer(transactionReceipt, into: &json)
        } else if let receipt {
            json.key("receipt")
            Self.write(receipt, into: &json)
            if let latestReceiptInfo {
                json.key("latest_receipt_info")
                json.beginArray()
                for view in latestReceiptInfo { Self.write(view, inLatestInfo: true, into: &json) }
                json.endArray()
            }
            if let latestReceipt { json.member("latest_receipt", latestReceipt) }
            if let pendingRenewalInfo {
                json.key("pending_renewal_info")
                json.beginArray()
                for renewal in pendingRenewalInfo { Self.write(renewal, into: &json) }
                json.endArray()
            }
            json.member("status", number: Int64(status))
        } else {
            json.member("status", number: Int64(status))
        }
        if let isRetryable {
            json.key("is_retryable")
            json.bool(isRetryable)
        }
        json.endObject()
        return json.bytes
    }

    private func writeTransactionReceiptAnswer(_ receipt: TransactionReceipt, into json: inout AppleJSONWriter) {
        json.key("receipt")
        Self.writeFlat(receipt.transaction, of: receipt, into: &json)
        if let latest = latestReceiptInfo?.first {
            json.key("latest_receipt_info")
            Self.writeFlat(latest, of: receipt, into: &json)
        }
        if let latestExpiredReceiptInfo {
            json.key("latest_expired_receipt_info")
            Self.writeFlat(latestExpiredReceiptInfo, of: receipt, into: &json)
        }
        if let latestReceipt { json.member("latest_receipt", latestReceipt) }
        json.member("status", number: Int64(status))
        if let renewal = pendingRenewalInfo?.first {
            json.member("auto_renew_status", number: renewal.autoRenewStatus ? 1 : 0)
            json.member("auto_renew_product_id", renewal.autoRenewProductID)
            if let intent = renewal.expirationIntent { json.member("expiration_intent", quotedNumber: Int64(intent)) }
            json.member("is_in_billing_retry_period", literal: renewal.isInBillingRetryPeriod == true ? "1" : "0")
        }
    }

    private static func write(_ receipt: AppReceipt, into json: inout AppleJSONWriter) {
        json.beginObject()
        json.member("receipt_type", receipt.receiptType)
        json.member("adam_id", number: receipt.appItemID)
        json.member("app_item_id", number: receipt.appItemID)
        json.member("bundle_id", receipt.bundleID)
        json.member("application_version", receipt.applicationVersion)
        json.key("download_id")
        if let download = receipt.downloadID { json.number(download) } else { json.null() }
        json.member("version_external_identifier", number: receipt.versionExternalIdentifier)
        json.dateMembers("receipt_creation_date", receipt.creationMs)
        json.dateMembers("request_date", receipt.requestMs)
        json.dateMembers("original_purchase_date", receipt.originalPurchaseMs)
        json.member("original_application_version", receipt.originalApplicationVersion)
        json.key("in_app")
        json.beginArray()
        for view in receipt.inApp { write(view, inLatestInfo: false, into: &json) }
        json.endArray()
        json.endObject()
    }

    /// One element of `in_app` or `latest_receipt_info` (the latter adds the subscription group).
    private static func write(_ view: WorldTransaction.View, inLatestInfo: Bool, into json: inout AppleJSONWriter) {
        let transaction = view.transaction
        json.beginObject()
        json.member("quantity", quotedNumber: Int64(transaction.quantity))
        json.member("product_id", transaction.productID)
        json.member("transaction_id", transaction.transactionID)
        json.member("original_transaction_id", transaction.originalTransactionID)
        json.dateMembers("purchase_date", transaction.purchaseMs)
        json.dateMembers("original_purchase_date", transaction.originalPurchaseMs)
        if let expires = transaction.expiresMs { json.dateMembers("expires_date", expires) }
        if let cancelled = view.cancellationMs {
            json.dateMembers("cancellation_date", cancelled)
            if let reason = view.cancellationReason { json.member("cancellation_reason", quotedNumber: Int64(reason)) }
        }
        if let webOrder = transaction.webOrderLineItemID { json.member("web_order_line_item_id", webOrder) }
        json.member("is_trial_period", literal: transaction.isTrialPeriod ? "true" : "false")
        json.member("is_in_intro_offer_period", literal: transaction.isInIntroOfferPeriod ? "true" : "false")
        if view.isUpgraded { json.member("is_upgraded", literal: "true") }
        json.member(
            "in_app_ownership_type", literal: transaction.ownership == .familyShared ? "FAMILY_SHARED" : "PURCHASED")
        if inLatestInfo, WorldCatalog.product(transaction.productID)?.kind == .autoRenewable {
            json.member("subscription_group_identifier", WorldCatalog.premiumGroupID)
        }
        json.endObject()
    }

    private static func write(_ renewal: WorldAccount.RenewalInfo, into json: inout AppleJSONWriter) {
        json.beginObject()
        if let intent = renewal.expirationIntent { json.member("expiration_intent", quotedNumber: Int64(intent)) }
        json.member("auto_renew_product_id", renewal.autoRenewProductID)
        if let retry = renewal.isInBillingRetryPeriod {
            json.member("is_in_billing_retry_period", literal: retry ? "1" : "0")
        }
        if let grace = renewal.gracePeriodExpiresMs { json.dateMembers("grace_period_expires_date", grace) }
        json.member("product_id", renewal.productID)
        json.member("original_transaction_id", renewal.originalTransactionID)
        json.member("auto_renew_status", literal: renewal.autoRenewStatus ? "1" : "0")
        json.endObject()
    }

    /// An iOS 6 purchase: flat, with `bid`/`bvrs`/`item_id`, `expires_date` in milliseconds and the
    /// text forms under `expires_date_formatted`.
    private static func writeFlat(
        _ view: WorldTransaction.View, of receipt: TransactionReceipt, into json: inout AppleJSONWriter
    ) {
        let transaction = view.transaction
        json.beginObject()
        json.member("bid", receipt.bundleID)
        json.member("bvrs", receipt.applicationVersion)
        json.member("item_id", quotedNumber: WorldCatalog.product(transaction.productID)?.itemID ?? 0)
        json.member("app_item_id", quotedNumber: receipt.appItemID)
        json.member("version_external_identifier", quotedNumber: receipt.versionExternalIdentifier)
        json.member("product_id", transaction.productID)
        json.member("transaction_id", transaction.transactionID)
        json.member("original_transaction_id", transaction.originalTransactionID)
        json.member("quantity", quotedNumber: Int64(transaction.quantity))
        json.dateMembers("purchase_date", transaction.purchaseMs)
        json.dateMembers("original_purchase_date", transaction.originalPurchaseMs)
        if let expires = transaction.expiresMs {
            json.member("expires_date", quotedNumber: expires)
            json.member("expires_date_formatted", AppleDateText.gmt(expires))
            json.member("expires_date_formatted_pst", AppleDateText.pacific(expires))
        }
        if let cancelled = view.cancellationMs { json.dateMembers("cancellation_date", cancelled) }
        if let webOrder = transaction.webOrderLineItemID { json.member("web_order_line_item_id", webOrder) }
        json.member("is_trial_period", literal: transaction.isTrialPeriod ? "true" : "false")
        json.member("is_in_intro_offer_period", literal: transaction.isInIntroOfferPeriod ? "true" : "false")
        json.member("unique_identifier", receipt.uniqueIdentifier)
        json.member("unique_vendor_identifier", receipt.uniqueVendorIdentifier)
        json.endObject()
    }
}
