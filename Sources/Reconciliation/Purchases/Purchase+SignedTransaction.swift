import AppStoreReceipts
import Foundation

extension Purchase {
    /// Apple's signed transaction (the App Store Server API's answers, a StoreKit 2 row): every field the
    /// rules and finance read, the revocation whole (type and percentage), the evidence as of
    /// `signedDate`. An introductory free trial is `offer.isTrial`, any other introductory offer
    /// `offer.isIntroOffer`; coded values are kept as Apple's raw values.
    public init(_ signed: SignedTransaction, source: TransactionSource) {
        var fields = Fields(source: source)
        fields.transactionID = signed.transactionID
        fields.originalTransactionID = signed.originalTransactionID
        fields.productID = signed.productID
        fields.purchaseDate = signed.purchaseDate
        fields.originalPurchaseDate = signed.originalPurchaseDate
        fields.expiresDate = signed.expiresDate
        fields.revocation = signed.revocationDate.map {
            Revocation(
                date: $0, reason: signed.revocationReason?.rawValue, type: signed.revocationType?.rawValue,
                percentageMilliunits: signed.revocationPercentage.map(Int64.init))
        }
        fields.ownership = signed.inAppOwnershipType?.rawValue
        fields.isUpgraded = signed.isUpgraded
        let introductory = signed.offerType == .introductory
        let freeTrial = introductory && signed.offerDiscountType == .freeTrial
        fields.offer = Offer(
            isTrial: freeTrial, isIntroOffer: introductory && !freeTrial, type: signed.offerType?.rawValue,
            discountType: signed.offerDiscountType?.rawValue)
        fields.price = signed.price.map(CurrencyAmount.init(milliunits:))
        fields.currency = signed.currency
        fields.storefront = signed.storefront
        fields.transactionReason = signed.transactionReason?.rawValue
        fields.quantity = signed.quantity
        fields.webOrderLineItemID = signed.webOrderLineItemID
        fields.environment = signed.environment?.appStoreEnvironment
        fields.evidenceDate = signed.signedDate
        self.init(fields)
    }
}

extension SubscriptionRenewal {
    /// Apple's signed renewal info. `inGracePeriod`: whether Apple's subscription status says the chain is
    /// in its billing grace period (status 4); only then does `gracePeriodExpiresDate` give access
    /// (billing retry without grace, status 3, gives none).
    public init(_ signed: SignedRenewalInfo, inGracePeriod: Bool, originalTransactionID: String? = nil) {
        self.init(
            originalTransactionID: signed.originalTransactionID ?? originalTransactionID, productID: signed.productID,
            gracePeriodExpiresDate: inGracePeriod ? signed.gracePeriodExpiresDate : nil,
            evidenceDate: signed.signedDate)
    }
}
