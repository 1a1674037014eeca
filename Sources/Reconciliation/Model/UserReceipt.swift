import AppStoreReceipts

/// One of a user's stored rows after this run's verification: the input of `UserTruth.compute` and
/// `FlagRule`, in the neutral purchase model whichever backend answered.
public struct UserReceipt: Hashable, Sendable {
    /// `receipts.id`.
    public var receiptID: Int64
    public var classification: ReceiptClassification
    /// What the row is known to carry. For an answer with receipt data (`valid`, `misrouted`, a bundle
    /// mismatch) Apple's purchases. For other `invalid` or `unverified` rows the backend may pass what the
    /// row itself claims (a receipt decoded locally, an unbelieved signed payload, what the job last
    /// recorded): those never count, but they name the entitlements the row was about, so a revoke says
    /// `invalid_receipt` rather than `no_purchase` and a permanent `unverified` keeps them (an `untrusted`
    /// one does not: nothing Apple signed vouches for them).
    public var purchases: [Purchase]
    /// Renewal state of the row's subscription chains (grace periods); used only when the row counts.
    public var renewals: [SubscriptionRenewal]
    /// Where `purchases` came from, recorded with each of them (`recon_transactions.source`). A
    /// `signed_row` is evidence as of its `signedDate`, not Apple's word now (CONTRACT §9, "Signed rows").
    public var source: TransactionSource

    public init(
        receiptID: Int64,
        classification: ReceiptClassification,
        purchases: [Purchase] = [],
        renewals: [SubscriptionRenewal] = [],
        source: TransactionSource = .verifyReceipt
    ) {
        self.receiptID = receiptID
        self.classification = classification
        self.purchases = purchases
        self.renewals = renewals
        self.source = source
    }

    public var outcome: ReceiptOutcome { classification.outcome }

    /// Whether the row holds Apple's signed data judged locally (never asked about since): evidence as
    /// of its `signedDate`, so it may grant only over an older entitlement row and revoke only for a
    /// revocation it carries (`CorrectionPlanner`).
    public var isSignedData: Bool { source == .signedRow }
}
