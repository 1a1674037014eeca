// The coded values of a notification, kept as Apple's raw values (see `SignedTransaction+Kinds`).

extension SignedNotification {
    /// `notificationType`.
    public struct NotificationType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let subscribed = NotificationType(rawValue: "SUBSCRIBED")
        public static let didChangeRenewalPref = NotificationType(rawValue: "DID_CHANGE_RENEWAL_PREF")
        public static let didChangeRenewalStatus = NotificationType(rawValue: "DID_CHANGE_RENEWAL_STATUS")
        public static let offerRedeemed = NotificationType(rawValue: "OFFER_REDEEMED")
        public static let didRenew = NotificationType(rawValue: "DID_RENEW")
        public static let expired = NotificationType(rawValue: "EXPIRED")
        public static let didFailToRenew = NotificationType(rawValue: "DID_FAIL_TO_RENEW")
        public static let gracePeriodExpired = NotificationType(rawValue: "GRACE_PERIOD_EXPIRED")
        public static let priceIncrease = NotificationType(rawValue: "PRICE_INCREASE")
        public static let refund = NotificationType(rawValue: "REFUND")
        public static let refundDeclined = NotificationType(rawValue: "REFUND_DECLINED")
        public static let refundReversed = NotificationType(rawValue: "REFUND_REVERSED")
        public static let consumptionRequest = NotificationType(rawValue: "CONSUMPTION_REQUEST")
        public static let renewalExtended = NotificationType(rawValue: "RENEWAL_EXTENDED")
        public static let renewalExtension = NotificationType(rawValue: "RENEWAL_EXTENSION")
        public static let revoke = NotificationType(rawValue: "REVOKE")
        public static let test = NotificationType(rawValue: "TEST")
        public static let externalPurchaseToken = NotificationType(rawValue: "EXTERNAL_PURCHASE_TOKEN")
        public static let oneTimeCharge = NotificationType(rawValue: "ONE_TIME_CHARGE")
        public static let rescindConsent = NotificationType(rawValue: "RESCIND_CONSENT")
        public static let metadataUpdate = NotificationType(rawValue: "METADATA_UPDATE")
        public static let migration = NotificationType(rawValue: "MIGRATION")
        public static let priceChange = NotificationType(rawValue: "PRICE_CHANGE")

        /// The types Apple documents, as Apple's library names them (`NotificationTypeV2`, 2026-05): any
        /// other is new to this build, kept and logged, never fatal.
        public static let documented: Set<NotificationType> = [
            .subscribed, .didChangeRenewalPref, .didChangeRenewalStatus, .offerRedeemed, .didRenew, .expired,
            .didFailToRenew, .gracePeriodExpired, .priceIncrease, .refund, .refundDeclined, .refundReversed,
            .consumptionRequest, .renewalExtended, .renewalExtension, .revoke, .test, .externalPurchaseToken,
            .oneTimeCharge, .rescindConsent, .metadataUpdate, .migration, .priceChange,
        ]
    }

    /// `subtype`.
    public struct Subtype: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let initialBuy = Subtype(rawValue: "INITIAL_BUY")
        public static let resubscribe = Subtype(rawValue: "RESUBSCRIBE")
        public static let downgrade = Subtype(rawValue: "DOWNGRADE")
        public static let upgrade = Subtype(rawValue: "UPGRADE")
        public static let autoRenewEnabled = Subtype(rawValue: "AUTO_RENEW_ENABLED")
        public static let autoRenewDisabled = Subtype(rawValue: "AUTO_RENEW_DISABLED")
        public static let voluntary = Subtype(rawValue: "VOLUNTARY")
        public static let billingRetry = Subtype(rawValue: "BILLING_RETRY")
        public static let priceIncrease = Subtype(rawValue: "PRICE_INCREASE")
        public static let gracePeriod = Subtype(rawValue: "GRACE_PERIOD")
        public static let pending = Subtype(rawValue: "PENDING")
        public static let accepted = Subtype(rawValue: "ACCEPTED")
        public static let billingRecovery = Subtype(rawValue: "BILLING_RECOVERY")
        public static let productNotForSale = Subtype(rawValue: "PRODUCT_NOT_FOR_SALE")
        public static let summary = Subtype(rawValue: "SUMMARY")
        public static let failure = Subtype(rawValue: "FAILURE")
        public static let unreported = Subtype(rawValue: "UNREPORTED")
    }

    /// `data.status`: the subscription's status, as Get All Subscription Statuses reports it.
    public struct SubscriptionStatus: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let active = SubscriptionStatus(rawValue: 1)
        public static let expired = SubscriptionStatus(rawValue: 2)
        /// Billing retry without grace: no access.
        public static let billingRetry = SubscriptionStatus(rawValue: 3)
        /// Billing grace period: access until `gracePeriodExpiresDate`.
        public static let billingGracePeriod = SubscriptionStatus(rawValue: 4)
        public static let revoked = SubscriptionStatus(rawValue: 5)
    }

    /// `data.consumptionRequestReason`.
    public struct ConsumptionRequestReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let unintendedPurchase = ConsumptionRequestReason(rawValue: "UNINTENDED_PURCHASE")
        public static let fulfillmentIssue = ConsumptionRequestReason(rawValue: "FULFILLMENT_ISSUE")
        public static let unsatisfiedWithPurchase = ConsumptionRequestReason(rawValue: "UNSATISFIED_WITH_PURCHASE")
        public static let legal = ConsumptionRequestReason(rawValue: "LEGAL")
        public static let other = ConsumptionRequestReason(rawValue: "OTHER")
    }
}
