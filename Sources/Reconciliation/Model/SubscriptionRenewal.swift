import Foundation

/// A subscription chain's renewal state as Apple reported it at `evidenceDate`: whether it is in its
/// billing grace period, and until when. Apple's state *then*, not a fact about any other instant, so the
/// rules use it only for an `--as-of` near that instant (`RenewalStateRule`, CONTRACT §9 "As of").
public struct SubscriptionRenewal: Hashable, Sendable {
    /// The chain (`original_transaction_id`).
    public var originalTransactionID: String?
    public var productID: String?
    /// The end of the billing grace period when the chain is in it (Server API status 4,
    /// verifyReceipt's `grace_period_expires_date`); nil otherwise, billing retry without grace included.
    public var gracePeriodExpiresDate: Date?
    /// The instant Apple's answer speaks for: the renewal info's `signedDate`, verifyReceipt's request date.
    public var evidenceDate: Date?

    public init(
        originalTransactionID: String?, productID: String? = nil, gracePeriodExpiresDate: Date? = nil,
        evidenceDate: Date? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.evidenceDate = evidenceDate
    }

}
