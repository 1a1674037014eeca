import AppStoreReceipts
import Foundation

// The verifyReceipt adapter: the one place after the seam that reads verifyReceipt's wire model.

extension Purchase {
    /// A transaction of a verifyReceipt answer. `cancellation_date` is the revocation: a refund, or with
    /// `is_upgraded` the upgrade; verifyReceipt says neither a type nor a percentage, so a refund counts
    /// whole. `environment` and `evidenceDate` are the answer's.
    init(_ transaction: VerifyReceiptTransaction, environment: AppStoreEnvironment?, evidenceDate: Date?) {
        var fields = Fields(source: .verifyReceipt)
        fields.transactionID = transaction.transactionID
        fields.originalTransactionID = transaction.originalTransactionID
        fields.productID = transaction.productID
        fields.purchaseDate = transaction.purchaseDate
        fields.originalPurchaseDate = transaction.originalPurchaseDate
        fields.expiresDate = transaction.expiresDate
        fields.revocation = transaction.cancellationDate.map {
            Revocation(date: $0, reason: transaction.cancellationReason, type: transaction.revocationType)
        }
        fields.ownership = transaction.inAppOwnershipType
        fields.isUpgraded = transaction.isUpgraded
        fields.offer = Offer(
            isTrial: transaction.isTrialPeriod, isIntroOffer: transaction.isInIntroOfferPeriod,
            type: transaction.offerType, discountType: transaction.offerDiscountType)
        fields.price = transaction.price.map(CurrencyAmount.init(milliunits:))
        fields.currency = transaction.currency
        fields.storefront = transaction.storefront
        fields.transactionReason = transaction.transactionReason
        fields.quantity = transaction.quantity
        fields.webOrderLineItemID = transaction.webOrderLineItemID
        fields.environment = environment
        fields.evidenceDate = evidenceDate
        self.init(fields)
    }
}

extension SubscriptionRenewal {
    /// `pending_renewal_info`: `grace_period_expires_date` is the grace period's end while billing retry
    /// keeps access.
    init(_ info: VerifyReceiptPendingRenewalInfo, evidenceDate: Date?) {
        self.init(
            originalTransactionID: info.originalTransactionID, productID: info.productID,
            gracePeriodExpiresDate: info.gracePeriodExpiresDate, evidenceDate: evidenceDate)
    }
}

extension UserReceipt {
    /// A receipt with the purchases and renewal state of Apple's answer, if any.
    public init(receiptID: Int64, classification: ReceiptClassification, response: VerifyReceiptResponse?) {
        let environment = response?.environment ?? classification.environment
        let evidenceDate = response?.receipt?.requestDate
        self.init(
            receiptID: receiptID, classification: classification,
            purchases: (response?.allTransactions ?? []).map {
                Purchase($0, environment: environment, evidenceDate: evidenceDate)
            },
            renewals: (response?.pendingRenewalInfo ?? []).map { SubscriptionRenewal($0, evidenceDate: evidenceDate) })
    }
}
