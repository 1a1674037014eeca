import AppStoreReceipts
import Foundation

/// The rows one user's unit of work writes, in the shapes of the job's tables (CONTRACT §4).
/// Built by the engine from the rules' output; written by `UnitWriter` in one transaction.

/// A `recon_results` row (and the matching `recon_receipt_state`).
public struct ResultRecord: Sendable {
    public var receiptID: Int64
    public var outcome: ReceiptOutcome
    public var appleStatus: Int?
    public var environment: AppStoreEnvironment?
    public var attempts: Int
    public var detail: String
    public var bundleID: String?
}

/// A `recon_transactions` row.
public struct TransactionRecord: Sendable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var receiptID: Int64
    public var environment: AppStoreEnvironment?
    public var purchasedAt: Date?
    public var originalPurchasedAt: Date?
    public var expiresAt: Date?
    public var cancelledAt: Date?
    public var cancellationReason: Int?
    public var isTrial: Bool?
    public var isIntroOffer: Bool?
    public var isUpgraded: Bool?
    public var ownershipType: String?
    public var quantity: Int?
    public var webOrderLineItemID: String?
    /// The finance fields (CONTRACT §9): signed data only, nil from verifyReceipt.
    public var price: CurrencyAmount?
    public var currency: String?
    public var storefront: String?
    public var offerType: Int?
    public var offerDiscountType: String?
    public var transactionReason: String?
    public var revocationType: String?
    /// How much of the price a revocation gave back (`recon_transactions.revocation_percentage`,
    /// CONTRACT §9): Apple's `revocationPercentage` (25000 → 25), 100 for `REFUND_FULL`, a refund
    /// without a percentage and a verifyReceipt cancellation that is not an upgrade; nil when not
    /// revoked, for an upgrade and for a family revocation. What `RefundedAmount` multiplies by.
    public var revocationPercentage: Percentage?
    public var source: TransactionSource
}

/// What the rules need from the database about one user, read under the user's lock.
public struct UserState: Sendable {
    /// Every row of the user, whatever its `source`: the planner needs the others to know which
    /// entitlements it must leave alone (CONTRACT §5).
    public var entitlements: [EntitlementRow] = []
    /// Transactions the job last saw refunded (`recon_transactions.cancelled_at` set).
    public var previouslyRefunded: Set<String> = []

    public init(entitlements: [EntitlementRow] = [], previouslyRefunded: Set<String> = []) {
        self.entitlements = entitlements
        self.previouslyRefunded = previouslyRefunded
    }
}

/// Everything one user's transaction writes (`UserDecision.plan`).
public struct UnitPlan: Sendable {
    public var results: [ResultRecord] = []
    public var transactions: [TransactionRecord] = []
    public var flags: [PlannedFlag] = []
    public var corrections: [CorrectionRecord] = []
    /// Original transaction ids of the user's receipts, for the run's end-of-run
    /// `shared_transaction` scan (written in dry runs too).
    public var sharedScan: [(receiptID: Int64, originalTransactionID: String)] = []

    public init(
        results: [ResultRecord] = [], transactions: [TransactionRecord] = [], flags: [PlannedFlag] = [],
        corrections: [CorrectionRecord] = [], sharedScan: [(receiptID: Int64, originalTransactionID: String)] = []
    ) {
        self.results = results
        self.transactions = transactions
        self.flags = flags
        self.corrections = corrections
        self.sharedScan = sharedScan
    }

    /// The plan takes some access away from the user (what the revoke breaker counts).
    public var revokes: Bool { corrections.contains { $0.action == .revoke } }
}
