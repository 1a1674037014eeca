import Foundation

/// The member names of a verifyReceipt answer that its models read, in every object the answer
/// nests (response, receipt, purchase, renewal info): one set, so that a member's slot and its bit in
/// `VerifyReceiptAnswerReader`'s record of what an object held are the same at every level.
///
/// Fewer than 64, so an object's members seen fit one `UInt64` (`bit`).
enum VerifyReceiptAnswerKey: Int, CaseIterable {
    case status
    case environment
    case latestReceipt
    case isRetryable
    case isRetryableHyphenated
    case receipt
    case latestReceiptInfo
    case latestExpiredReceiptInfo
    case pendingRenewalInfo
    case autoRenewProductID
    case autoRenewStatus
    case expirationIntent
    case isInBillingRetryPeriod
    case gracePeriodExpiresDateMilliseconds
    case gracePeriodExpiresDate
    case originalTransactionID
    case productID
    case priceConsentStatus
    case receiptType
    case bundleID
    case bid
    case applicationVersion
    case bvrs
    case originalApplicationVersion
    case receiptCreationDateMilliseconds
    case receiptCreationDate
    case requestDateMilliseconds
    case requestDate
    case originalPurchaseDateMilliseconds
    case originalPurchaseDate
    case expirationDateMilliseconds
    case expirationDate
    case appItemID
    case adamID
    case downloadID
    case versionExternalIdentifier
    case inApp
    case transactionID
    case quantity
    case purchaseDateMilliseconds
    case purchaseDate
    case expiresDateMilliseconds
    case expiresDate
    case expiresDateFormatted
    case cancellationDateMilliseconds
    case cancellationDate
    case cancellationReason
    case isTrialPeriod
    case isInIntroOfferPeriod
    case isUpgraded
    case webOrderLineItemID
    case inAppOwnershipType
    case subscriptionGroupIdentifier
    case promotionalOfferID
    case offerCodeRefName
    case appAccountToken
    case itemID

    /// The name as Apple writes it.
    var name: StaticString {
        switch self {
        case .status: "status"
        case .environment: "environment"
        case .latestReceipt: "latest_receipt"
        case .isRetryable: "is_retryable"
        case .isRetryableHyphenated: "is-retryable"
        case .receipt: "receipt"
        case .latestReceiptInfo: "latest_receipt_info"
        case .latestExpiredReceiptInfo: "latest_expired_receipt_info"
        case .pendingRenewalInfo: "pending_renewal_info"
        case .autoRenewProductID: "auto_renew_product_id"
        case .autoRenewStatus: "auto_renew_status"
        case .expirationIntent: "expiration_intent"
        case .isInBillingRetryPeriod: "is_in_billing_retry_period"
        case .gracePeriodExpiresDateMilliseconds: "grace_period_expires_date_ms"
        case .gracePeriodExpiresDate: "grace_period_expires_date"
        case .originalTransactionID: "original_transaction_id"
        case .productID: "product_id"
        case .priceConsentStatus: "price_consent_status"
        case .receiptType: "receipt_type"
        case .bundleID: "bundle_id"
        case .bid: "bid"
        case .applicationVersion: "application_version"
        case .bvrs: "bvrs"
        case .originalApplicationVersion: "original_application_version"
        case .receiptCreationDateMilliseconds: "receipt_creation_date_ms"
        case .receiptCreationDate: "receipt_creation_date"
        case .requestDateMilliseconds: "request_date_ms"
        case .requestDate: "request_date"
        case .originalPurchaseDateMilliseconds: "original_purchase_date_ms"
        case .originalPurchaseDate: "original_purchase_date"
        case .expirationDateMilliseconds: "expiration_date_ms"
        case .expirationDate: "expiration_date"
        case .appItemID: "app_item_id"
        case .adamID: "adam_id"
        case .downloadID: "download_id"
        case .versionExternalIdentifier: "version_external_identifier"
        case .inApp: "in_app"
        case .transactionID: "transaction_id"
        case .quantity: "quantity"
        case .purchaseDateMilliseconds: "purchase_date_ms"
        case .purchaseDate: "purchase_date"
        case .expiresDateMilliseconds: "expires_date_ms"
        case .expiresDate: "expires_date"
        case .expiresDateFormatted: "expires_date_formatted"
        case .cancellationDateMilliseconds: "cancellation_date_ms"
        case .cancellationDate: "cancellation_date"
        case .cancellationReason: "cancellation_reason"
        case .isTrialPeriod: "is_trial_period"
        case .isInIntroOfferPeriod: "is_in_intro_offer_period"
        case .isUpgraded: "is_upgraded"
        case .webOrderLineItemID: "web_order_line_item_id"
        case .inAppOwnershipType: "in_app_ownership_type"
        case .subscriptionGroupIdentifier: "subscription_group_identifier"
        case .promotionalOfferID: "promotional_offer_id"
        case .offerCodeRefName: "offer_code_ref_name"
        case .appAccountToken: "app_account_token"
        case .itemID: "item_id"
        }
    }

    var bit: UInt64 { 1 << UInt64(rawValue) }

    /// The key named by `utf8`; nil for the names no model reads.
    init?(_ utf8: UnsafeBufferPointer<UInt8>) {
        let table = Self.table
        let fingerprint = AppleJSONDocument.fingerprint(UnsafeRawBufferPointer(utf8))
        var slot = AppleJSONDocument.slot(fingerprint, size: table.count)
        while let key = table[slot].key {
            if table[slot].fingerprint == fingerprint, key.name.utf8CodeUnitCount == utf8.count,
                memcmp(key.name.utf8Start, utf8.baseAddress!, utf8.count) == 0
            {
                self = key
                return
            }
            slot = (slot + 1) & (table.count - 1)
        }
        return nil
    }

    /// An open-addressing table over the names' fingerprints, a quarter full. Fixed, so no input can
    /// lengthen its probes: a name it does not hold ends at the first empty slot it meets.
    private static let table: [(fingerprint: UInt32, key: VerifyReceiptAnswerKey?)] = {
        var table: [(fingerprint: UInt32, key: VerifyReceiptAnswerKey?)] = Array(repeating: (0, nil), count: 256)
        for key in allCases {
            let fingerprint = AppleJSONDocument.fingerprint(
                UnsafeRawBufferPointer(start: key.name.utf8Start, count: key.name.utf8CodeUnitCount))
            var slot = AppleJSONDocument.slot(fingerprint, size: table.count)
            while table[slot].key != nil { slot = (slot + 1) & (table.count - 1) }
            table[slot] = (fingerprint, key)
        }
        return table
    }()
}
