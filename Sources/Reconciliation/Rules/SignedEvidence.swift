import AppStoreReceipts
import Foundation

/// What a `receipts` row holding Apple's signed data (a StoreKit 2 `jwsRepresentation`, or a
/// notification) says, in the shape the rules read: its transactions and renewal info, with the
/// bundle id, environment and `signedDate` they were signed with.
///
/// Signed data is evidence as of its `signedDate` only (CONTRACT §9): it proves a purchase and its
/// end as Apple knew them then, and a refund it carries; a renewal or refund since is unknown to it.
public struct SignedEvidence: Hashable, Sendable {
    public var format: SignedDataFormat?
    public var transactions: [VerifyReceiptTransaction] = []
    public var renewalInfo: [VerifyReceiptPendingRenewalInfo] = []
    public var bundleID: String?
    public var environment: SignedEnvironment?
    public var signedDate: Date?

    public init(
        format: SignedDataFormat? = nil, transactions: [VerifyReceiptTransaction] = [],
        renewalInfo: [VerifyReceiptPendingRenewalInfo] = [], bundleID: String? = nil,
        environment: SignedEnvironment? = nil, signedDate: Date? = nil
    ) {
        self.format = format
        self.transactions = transactions
        self.renewalInfo = renewalInfo
        self.bundleID = bundleID
        self.environment = environment
        self.signedDate = signedDate
    }

    /// The evidence of a verification, whether or not it succeeded (an unbelieved payload still
    /// names what it claims, which lets a revoke say `invalid_receipt`). A notification contributes
    /// its nested transaction and renewal info.
    public init(_ verification: SignedDataVerification) {
        guard let payload = verification.payload else { return }
        format = payload.format
        bundleID = payload.bundleID
        environment = payload.environment
        signedDate = payload.signedDate
        add(payload)
        for nested in verification.nested {
            if let payload = nested.verification.payload { add(payload) }
        }
    }

    private mutating func add(_ payload: SignedPayload) {
        switch payload {
        case .transaction(let transaction): transactions.append(VerifyReceiptTransaction(transaction))
        case .renewalInfo(let info): renewalInfo.append(VerifyReceiptPendingRenewalInfo(info))
        case .notification, .appTransaction: break
        }
    }
}
