import AppStoreReceipts
import Foundation

/// The rows one user's unit of work writes, in the shapes of the job's tables (CONTRACT §4).
/// Built by the engine from the rules' output; written by `UnitWriter` in one transaction.

/// A `recon_results` row (and the matching `recon_receipt_state`).
public struct ResultRecord: Sendable {
    public var receiptID: Int64
    public var outcome: String
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
}

/// A `recon_flags` row; `receiptID` nil for a per-user flag.
public struct FlagRecord: Sendable, Hashable {
    public var receiptID: Int64?
    public var kind: String
    public var detail: String
}

/// A `recon_corrections` row and the entitlement change it stands for.
public struct CorrectionRecord: Sendable {
    public var entitlement: String
    public var action: String
    public var reason: String
    public var beforeActive: Bool?
    public var beforeExpiresAt: Date?
    public var afterActive: Bool
    public var afterExpiresAt: Date?
    public var productID: String?
    public var originalTransactionID: String?
}
