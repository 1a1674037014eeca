import AppStoreReceipts
import Foundation

/// The Apple fact that decided a correction or a flag (CONTRACT §6, "Evidence"): what
/// `recon_corrections.evidence` and `recon_flags.evidence` hold. Built by the rules from the purchase
/// model (never from wire text), so `verify-user --explain`, finance and a replay read one record.
///
/// One shape for every rule: the rule's word, the instant it judged at, and the facts it used. A fact
/// the rule did not use, or Apple did not say, is nil or empty (left out of the JSON). Which facts each
/// rule fills is listed in docs/reconciliation-rules.md ("Evidence").
public struct Evidence: Hashable, Sendable {
    /// The rule that used the facts: the correction's reason (`refund`, `expired`, `no_purchase`, ...,
    /// `reverted`) or the flag's kind (`invalid_receipt`, `refunded`, `unverified`, ...).
    public var rule: String
    /// The `--as-of` the rule judged at.
    public var asOf: Date?
    /// The entitlement a correction changed.
    public var entitlement: String?
    /// The purchases that decided it: the refunded one, the one whose end is the new expiry, the ones
    /// a flag names. Oldest purchase first.
    public var purchases: [PurchaseFact] = []
    /// The stored rows the rule read, with what Apple answered for each: the receipts that alone named
    /// the entitlement (`invalid_receipt`, `bundle_mismatch`, `wrong_environment`), every row Apple
    /// answered for (`no_purchase`), the flagged row.
    public var receipts: [ReceiptFact] = []
    /// `grace_period`: the end of the billing grace period Apple reported.
    public var gracePeriodExpiresDate: Date?
    /// `refund_reversed`: the job had recorded the purchase refunded, and Apple now reports it is not.
    public var previouslyRefunded: Bool?
    /// `unknown_product`: the product ids that are not in `products`.
    public var productIDs: [String] = []
    /// `shared_transaction`: the original transaction, and the other users whose receipts hold it.
    public var originalTransactionID: String?
    public var otherUsers: [String] = []
    /// `entitlement_without_receipt`: the active `app_store` rows of a user without any receipt.
    public var entitlementRows: [EntitlementFact] = []
    /// `reverted`: the correction undone, its run and its reason.
    public var revertsCorrectionID: Int64?
    public var revertsRunID: Int64?
    public var revertsReason: CorrectionReason?

    public init(rule: String, asOf: Date? = nil, entitlement: String? = nil) {
        self.rule = rule
        self.asOf = asOf
        self.entitlement = entitlement
    }
}

extension Evidence {
    /// One purchase as a rule read it, as of `--as-of`.
    public struct PurchaseFact: Hashable, Sendable {
        /// `receipts.id` of the stored row Apple's answer for it came with.
        public var receiptID: Int64?
        public var transactionID: String?
        public var originalTransactionID: String?
        public var productID: String?
        public var source: TransactionSource
        public var environment: AppStoreEnvironment?
        public var purchaseDate: Date?
        /// The end of the access it gives: Apple's `expires_date`, or `purchase_date + duration` for a
        /// `non_renewing` product; nil for one that never expires or whose end is unknown.
        public var expiresDate: Date?
        /// The revocation as of `--as-of` (a later one has not happened yet).
        public var revocationDate: Date?
        /// Apple's `revocationReason` / `cancellation_reason`: 1 an issue with the app, 0 another reason.
        public var revocationReason: Int?
        /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`; nil from verifyReceipt.
        public var revocationType: String?
        /// The share refunded (`recon_transactions.revocation_percentage`): 100 for a full refund.
        public var revocationPercentage: Percentage?
        public var isUpgraded: Bool?
        /// `PURCHASED` or `FAMILY_SHARED`.
        public var ownership: String?
        /// The instant Apple's word speaks for: a signed transaction's `signedDate`, the moment
        /// verifyReceipt answered.
        public var reportedAt: Date?

        public init(source: TransactionSource) { self.source = source }
    }

    /// One stored row and Apple's answer for it in the run.
    public struct ReceiptFact: Hashable, Sendable {
        public var receiptID: Int64
        public var outcome: ReceiptOutcome
        /// What told the job: verifyReceipt, the App Store Server API, or the signed row itself.
        public var source: TransactionSource
        /// The environment Apple found the receipt in.
        public var environment: AppStoreEnvironment?
        /// verifyReceipt's `status`.
        public var appleStatus: Int?
        /// The App Store Server API's `errorCode` that decided the outcome.
        public var errorCode: Int?
        /// For an `unverified` row: whether asking again may change it.
        public var unverified: UnverifiedKind?
        /// The row's one-line account (`recon_results.detail`): the cause of an `unverified`, the local
        /// proof of an `invalid`. Never receipt data.
        public var detail: String?
        /// For a row that counts or is `misrouted`: the product ids of Apple's purchases on it.
        public var productIDs: [String] = []

        public init(receiptID: Int64, outcome: ReceiptOutcome, source: TransactionSource) {
            self.receiptID = receiptID
            self.outcome = outcome
            self.source = source
        }
    }

    /// One `entitlements` row as it stood (`entitlement_without_receipt`).
    public struct EntitlementFact: Hashable, Sendable {
        public var entitlement: String
        public var expiresAt: Date?
        public var productID: String?
        public var originalTransactionID: String?
        public var updatedAt: Date?

        public init(entitlement: String) { self.entitlement = entitlement }
    }
}

extension Evidence.PurchaseFact {
    /// A purchase of `receiptID` as of `asOf`: a revocation dated after it is left out.
    public init(_ purchase: Purchase, receiptID: Int64?, asOf: Date) {
        let fields = purchase.fields
        self.init(source: fields.source)
        self.receiptID = receiptID
        transactionID = fields.transactionID
        originalTransactionID = fields.originalTransactionID
        productID = fields.productID
        environment = fields.environment
        purchaseDate = fields.purchaseDate
        expiresDate = fields.expiresDate
        if let revocation = purchase.revocationHappened(by: asOf) {
            revocationDate = revocation.date
            revocationReason = revocation.reason
            revocationType = revocation.type
            revocationPercentage = purchase.refundPercentage
        }
        isUpgraded = fields.isUpgraded
        ownership = fields.ownership
        reportedAt = fields.evidenceDate
    }
}

extension Evidence.ReceiptFact {
    /// A row with this run's answer. `withProducts`: name the products Apple reported on it (only a row
    /// that carries Apple's purchases, `valid` or `misrouted`, has any to name).
    public init(_ receipt: UserReceipt, withProducts: Bool = false) {
        let classification = receipt.classification
        self.init(receiptID: receipt.receiptID, outcome: classification.outcome, source: receipt.source)
        environment = classification.environment
        appleStatus = classification.appleStatus
        errorCode = classification.errorCode
        unverified = classification.unverified
        if classification.outcome != .valid { detail = classification.detail }
        if withProducts, receipt.outcome == .valid || receipt.outcome == .misrouted {
            productIDs = Array(Set(receipt.purchases.compactMap { $0.productID })).sorted()
        }
    }
}
