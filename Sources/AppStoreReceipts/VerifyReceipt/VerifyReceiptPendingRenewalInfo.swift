import Foundation

/// One element of `pending_renewal_info`: the renewal state of one auto-renewable subscription.
///
/// See Apple's [responseBody.Pending_renewal_info](https://developer.apple.com/documentation/appstorereceipts/responsebody/pending_renewal_info).
public struct VerifyReceiptPendingRenewalInfo: Hashable, Sendable {
    /// `auto_renew_product_id`: the product the subscription renews into (differs after a
    /// downgrade or crossgrade).
    public var autoRenewProductID: String?
    /// `auto_renew_status`: 1 = will renew, 0 = the customer turned auto-renew off. This is not
    /// whether the subscription is active.
    public var autoRenewStatus: Int?
    /// `expiration_intent` (only once expired): 1 customer cancelled, 2 billing error,
    /// 3 price increase not consented, 4 product unavailable, 5 other.
    public var expirationIntent: Int?
    /// `is_in_billing_retry_period`: Apple is still trying to charge.
    public var isInBillingRetryPeriod: Bool?
    /// `grace_period_expires_date_ms` (else `grace_period_expires_date`): keep access until then.
    public var gracePeriodExpiresDate: Date?
    /// `original_transaction_id`: the subscription chain this describes.
    public var originalTransactionID: String?
    /// `product_id`: the product currently subscribed to.
    public var productID: String?
    /// `price_consent_status`: 1 consented to a price increase, 0 not yet.
    public var priceConsentStatus: Int?

    public init(
        autoRenewProductID: String? = nil,
        autoRenewStatus: Int? = nil,
        expirationIntent: Int? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDate: Date? = nil,
        originalTransactionID: String? = nil,
        productID: String? = nil,
        priceConsentStatus: Int? = nil
    ) {
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.priceConsentStatus = priceConsentStatus
    }

    /// Whether the subscription is set to renew (`auto_renew_status` 1); nil when not sent.
    public var willAutoRenew: Bool? { autoRenewStatus.map { $0 == 1 } }
}

extension VerifyReceiptPendingRenewalInfo {
    var isEmpty: Bool { self == VerifyReceiptPendingRenewalInfo() }
}
