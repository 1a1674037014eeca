import AppStoreReceipts
import Foundation

/// What a `receipts` row holding Apple's signed data (a StoreKit 2 `jwsRepresentation`, or a
/// notification) says, in the neutral purchase model: its purchases (`source` `signed_row`) and renewal
/// state, with the bundle id, environment and `signedDate` they were signed with.
///
/// Signed data is evidence as of its `signedDate` only (CONTRACT §9): it proves a purchase and its
/// end as Apple knew them then, and a refund it carries; a renewal or refund since is unknown to it.
public struct SignedEvidence: Hashable, Sendable {
    public var format: SignedDataFormat?
    public var purchases: [Purchase] = []
    public var renewals: [SubscriptionRenewal] = []
    public var bundleID: String?
    public var environment: SignedEnvironment?
    public var signedDate: Date?

    public init(
        format: SignedDataFormat? = nil, purchases: [Purchase] = [],
        renewals: [SubscriptionRenewal] = [], bundleID: String? = nil,
        environment: SignedEnvironment? = nil, signedDate: Date? = nil
    ) {
        self.format = format
        self.purchases = purchases
        self.renewals = renewals
        self.bundleID = bundleID
        self.environment = environment
        self.signedDate = signedDate
    }

    /// The evidence of a verification, whether or not it succeeded (an unbelieved payload still
    /// names what it claims, which lets a revoke say `invalid_receipt`, and gives the id to ask Apple about). A notification contributes
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
        case .transaction(let transaction): purchases.append(Purchase(transaction, source: .signedRow))
        case .renewalInfo(let info): renewals.append(SubscriptionRenewal(info, inGracePeriod: true))
        case .notification, .appTransaction: break
        }
    }
}
