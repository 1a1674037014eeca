import AppStoreReceipts
import Foundation

/// One purchase as the rules, the writers and the finance figures read it, whichever source told the
/// job about it: verifyReceipt's JSON, Apple's signed transaction (the App Store Server API or a
/// StoreKit 2 row), or a receipt decoded locally. Each source has one adapter
/// (`Purchase+VerifyReceipt.swift`, `Purchase+SignedTransaction.swift`, `Purchase+LocalReceipt.swift`);
/// nothing after the backend seam reads a wire format.
///
/// What the wire formats lost and this keeps: the revocation's type and percentage (a prorated refund,
/// a Family Sharing revocation), the ownership, the environment and the instant the evidence speaks for.
///
/// Why a box behind `@dynamicMemberLookup`: a purchase is a score of fields, most of them strings, and
/// travels whole from the answer through the rules to the writer; a copy of the box is one retain.
@dynamicMemberLookup
public struct Purchase: Hashable, Sendable {
    public struct Fields: Hashable, Sendable {
        public var transactionID: String?
        /// The subscription chain, or the original purchase of a restore.
        public var originalTransactionID: String?
        public var productID: String?
        /// For a renewal, the renewal time.
        public var purchaseDate: Date?
        public var originalPurchaseDate: Date?
        /// Auto-renewable subscriptions only.
        public var expiresDate: Date?
        /// Refunded, revoked from Family Sharing, or (with `isUpgraded`) replaced by an upgrade.
        public var revocation: Revocation?
        /// `PURCHASED` or `FAMILY_SHARED` (Apple's raw value, kept when unknown).
        public var ownership: String?
        /// The customer moved to another product of the group; the upgrade target carries the access.
        public var isUpgraded: Bool?
        public var offer = Offer()
        /// Customer price in `currency` (Apple's milliunits, exact).
        public var price: CurrencyAmount?
        public var currency: String?
        public var storefront: String?
        /// `PURCHASE` or `RENEWAL`.
        public var transactionReason: String?
        public var quantity: Int?
        public var webOrderLineItemID: String?
        /// The environment the evidence says the purchase belongs to, when it says.
        public var environment: AppStoreEnvironment?
        /// The instant the evidence speaks for: a signed transaction's `signedDate`, the instant
        /// verifyReceipt answered. nil when unknown.
        public var evidenceDate: Date?
        public var source: TransactionSource

        public init(source: TransactionSource) { self.source = source }
    }

    /// The offer a purchase was made under.
    public struct Offer: Hashable, Sendable {
        /// An introductory free trial.
        public var isTrial: Bool?
        /// Any other introductory offer.
        public var isIntroOffer: Bool?
        /// Apple's `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
        public var type: Int?
        /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, `ONE_TIME`.
        public var discountType: String?

        public init(isTrial: Bool? = nil, isIntroOffer: Bool? = nil, type: Int? = nil, discountType: String? = nil) {
            self.isTrial = isTrial
            self.isIntroOffer = isIntroOffer
            self.type = type
            self.discountType = discountType
        }
    }

    private var storage: CopyOnWrite<Fields>

    public init(_ fields: Fields) { storage = CopyOnWrite(fields) }

    // Read in place (`CopyOnWrite.value` is borrowed), so a field read copies that field, not the
    // score of strings beside it. A key path through this subscript used as a function
    // (`compactMap(\.evidenceDate)`) is not folded into a field read: each call looks the key path up
    // at run time, so loops over purchases read with a closure.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Fields, Value>) -> Value {
        get { storage.value[keyPath: keyPath] }
        set { storage.value[keyPath: keyPath] = newValue }
    }

    /// Borrowed: `purchase.fields.revocation` copies the revocation, not every field.
    public var fields: Fields {
        _read { yield storage.value }
    }
}

extension Purchase {
    /// The revocation as of `asOf`: one dated after it has not happened yet (CONTRACT §9, "As of").
    public func revocationHappened(by asOf: Date) -> Revocation? {
        guard let revocation = fields.revocation, revocation.date <= asOf else { return nil }
        return revocation
    }

    /// A Family Sharing revocation: Apple's `FAMILY_REVOKE`, or a revoked family member's copy.
    public var isFamilyRevocation: Bool {
        guard let revocation = fields.revocation, fields.isUpgraded != true else { return false }
        return revocation.type == Revocation.familyRevoke || fields.ownership == Self.familyShared
    }

    /// Revoked as of `asOf` for any reason but an upgrade: counts as never purchased (CONTRACT §5).
    public func isRevoked(asOf: Date) -> Bool { revocationHappened(by: asOf) != nil && fields.isUpgraded != true }

    /// A refund (not an upgrade, not Family Sharing) as of `asOf`.
    public func isRefunded(asOf: Date) -> Bool { isRevoked(asOf: asOf) && !isFamilyRevocation }

    /// `recon_transactions.revocation_percentage`: the share refunded, as a percentage (Apple's
    /// milliunits ÷ 1000; 100 for a full refund or a verifyReceipt cancellation); nil when the purchase
    /// is not refunded, and for upgrades and Family Sharing revocations, which refund nothing.
    public var refundPercentage: Percentage? {
        guard let revocation = fields.revocation, fields.isUpgraded != true, !isFamilyRevocation else { return nil }
        if revocation.type == Revocation.refundFull { return .full }
        return revocation.percentageMilliunits.flatMap(Percentage.init(thousandths:)) ?? .full
    }

    static let familyShared = "FAMILY_SHARED"
}
