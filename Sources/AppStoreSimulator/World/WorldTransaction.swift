/// One purchase or renewal as the App Store records it, with everything that happens to it later.
///
/// Times are milliseconds since 1970 (Apple's resolution). The record holds events, not a state: a
/// refund at `refund.at` that Apple reversed at `refund.reversedAt` shows as a cancellation only to
/// someone asking in between. `WorldTransaction.View` is the state as seen at an instant.
public struct WorldTransaction: Sendable, Hashable {
    /// A refund (or a Family Sharing revocation), possibly reversed later.
    public struct Refund: Sendable, Hashable {
        public var at: Int64
        /// `cancellation_reason`: 1 the customer cited a problem with the app, 0 another reason.
        public var reason: Int
        /// When Apple reversed the refund, if it did.
        public var reversedAt: Int64?
        /// A prorated refund (`REFUND_PRORATED`): Apple's `revocationPercentage`, in milliunits of a
        /// percent (25000 is 25 %). nil: a full refund (`REFUND_FULL`), or a family revocation. Only the
        /// Server API says so; verifyReceipt shows any refund as a `cancellation_date`.
        public var percentage: Int? = nil
    }

    public enum Ownership: String, Sendable, Hashable {
        case purchased = "PURCHASED"
        case familyShared = "FAMILY_SHARED"
    }

    public var productID: String
    public var transactionID: String
    public var originalTransactionID: String
    public var purchaseMs: Int64
    public var originalPurchaseMs: Int64
    /// Auto-renewables only.
    public var expiresMs: Int64?
    public var refund: Refund?
    /// The customer upgraded away from this period at this instant (`is_upgraded`, with a cancellation).
    public var upgradedAt: Int64?
    public var isTrialPeriod: Bool
    public var isInIntroOfferPeriod: Bool
    /// Auto-renewables only: one billing period, stable across devices.
    public var webOrderLineItemID: String?
    public var ownership: Ownership
    public var quantity: Int

    /// The transaction as Apple reports it at `instant`.
    public func view(at instant: Int64) -> View {
        var cancellation: (at: Int64, reason: Int?)?
        if let upgradedAt, upgradedAt <= instant {
            cancellation = (upgradedAt, nil)
        } else if let refund, refund.at <= instant, !(refund.reversedAt.map { $0 <= instant } ?? false) {
            cancellation = (refund.at, refund.reason)
        }
        return View(
            transaction: self, cancellationMs: cancellation?.at, cancellationReason: cancellation?.reason,
            isUpgraded: upgradedAt.map { $0 <= instant } ?? false)
    }

    /// A transaction's state at one instant: what an answer shows.
    public struct View: Sendable, Hashable {
        public var transaction: WorldTransaction
        public var cancellationMs: Int64?
        public var cancellationReason: Int?
        public var isUpgraded: Bool

        /// Revoked, and not by an upgrade: the purchase counts as never made (rules.md, "Truth").
        public var isRevoked: Bool { cancellationMs != nil && !isUpgraded }

        /// A revocation because Family Sharing ended for this copy (`FAMILY_REVOKE`, or a revoked
        /// `FAMILY_SHARED` purchase): reason `family_revoke`, flag `family_revoked`, never money.
        public var isFamilyRevocation: Bool { isRevoked && transaction.ownership == .familyShared }

        /// A refund proper (`REFUND_FULL` / `REFUND_PRORATED`): reason `refund`, flag `refunded`.
        public var isRefund: Bool { isRevoked && transaction.ownership != .familyShared }

        /// Apple's `revocationType` for this view, nil when not revoked or revoked by an upgrade.
        public var revocationType: String? {
            guard isRevoked else { return nil }
            if isFamilyRevocation { return "FAMILY_REVOKE" }
            return transaction.refund?.percentage == nil ? "REFUND_FULL" : "REFUND_PRORATED"
        }

        /// Apple's `revocationPercentage` (milliunits of a percent), only on a prorated refund.
        public var revocationPercentage: Int? {
            revocationType == "REFUND_PRORATED" ? transaction.refund?.percentage : nil
        }
    }
}
