import AppStoreReceipts
import Foundation

extension Purchase {
    /// An in-app purchase as a receipt decoded locally claims it: unverified by Apple, so such purchases
    /// never count; they name what a row was about (a revoke can say `invalid_receipt`, a permanent
    /// `unverified` keeps its entitlements from being revoked).
    public init(_ claimed: LocalReceipt.InAppPurchase, environment: AppStoreEnvironment?) {
        var fields = Fields(source: .verifyReceipt)
        fields.transactionID = claimed.transactionID
        fields.originalTransactionID = claimed.originalTransactionID
        fields.productID = claimed.productID
        fields.purchaseDate = claimed.purchaseDate
        fields.originalPurchaseDate = claimed.originalPurchaseDate
        fields.expiresDate = claimed.expiresDate
        fields.revocation = claimed.cancellationDate.map { Revocation(date: $0) }
        fields.offer = Offer(isTrial: claimed.isTrialPeriod, isIntroOffer: claimed.isInIntroOfferPeriod)
        fields.quantity = claimed.quantity
        fields.webOrderLineItemID = claimed.webOrderLineItemID
        fields.environment = environment
        self.init(fields)
    }
}

extension LocalReceipt {
    /// The environment the receipt claims to be from; nil for Xcode and anything unknown.
    var claimedEnvironment: AppStoreEnvironment? {
        switch environmentKind {
        case .production: .production
        case .sandbox: .sandbox
        case .xcode, .unrecognized: nil
        }
    }

    /// Its in-app purchases, as claims.
    var claimedPurchases: [Purchase] { inApp.map { Purchase($0, environment: claimedEnvironment) } }
}
