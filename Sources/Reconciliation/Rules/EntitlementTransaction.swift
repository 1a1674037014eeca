import AppStoreReceipts
import CivilTime
import Foundation

/// One transaction of a counted receipt, as it bears on one entitlement.
public struct EntitlementTransaction: Hashable, Sendable {
    public var transactionID: String?
    public var originalTransactionID: String?
    public var productID: String
    public var kind: ProductKind
    public var purchaseDate: Date?
    /// The end of the access this transaction alone would give: `expires_date`
    /// (`auto_renewable`), `purchase_date + duration` (`non_renewing`), `.never`
    /// (`non_consumable`); nil when it cannot be known (no `expires_date`, no `duration`), and
    /// then the transaction grants nothing.
    public var accessEnd: Expiry?
    /// When Apple took it back, as of `--as-of` (a later revocation has not happened yet): refunded,
    /// revoked from Family Sharing, or (with `isUpgraded`) replaced by an upgrade.
    public var revocationDate: Date?
    /// Replaced by an upgrade by `--as-of` (an upgrade after it has not happened yet, `UpgradeInstant`).
    public var isUpgraded: Bool
    /// The revocation ended Family Sharing of the purchase (`family_revoke`), not a refund.
    public var isFamilyRevocation: Bool
    /// Where the evidence came from, and the instant it speaks for (a signed row's `signedDate`).
    public var source: TransactionSource
    public var evidenceDate: Date?
    /// The stored row whose answer reported it, and the purchase whole: what its evidence names
    /// (`Evidence.PurchaseFact`). nil for a transaction built by hand.
    public var receiptID: Int64?
    public var purchase: Purchase?

    public init(
        transactionID: String?,
        originalTransactionID: String?,
        productID: String,
        kind: ProductKind,
        purchaseDate: Date?,
        accessEnd: Expiry?,
        revocationDate: Date? = nil,
        isUpgraded: Bool = false,
        isFamilyRevocation: Bool = false,
        source: TransactionSource = .verifyReceipt,
        evidenceDate: Date? = nil,
        receiptID: Int64? = nil,
        purchase: Purchase? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.kind = kind
        self.purchaseDate = purchaseDate
        self.accessEnd = accessEnd
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.isFamilyRevocation = isFamilyRevocation
        self.source = source
        self.evidenceDate = evidenceDate
        self.receiptID = receiptID
        self.purchase = purchase
    }

    /// A purchase read through `products` at `asOf`; nil when the product is unknown, has no
    /// entitlement, or is a consumable ("Transactions whose product is unknown or consumable grant
    /// nothing"), and for a purchase made after `asOf` (CONTRACT §9, "As of"). `upgradedAt`: when the
    /// purchase was upgraded away from (`UpgradeInstant`); an upgrade after `asOf` has not happened yet,
    /// one Apple did not date counts at any instant.
    public init?(
        _ purchase: Purchase, catalog: ProductCatalog, asOf: Date, upgradedAt: Date? = nil, receiptID: Int64? = nil
    ) {
        guard let product = catalog[purchase.productID] else { return nil }
        self.init(purchase, product: product, asOf: asOf, upgradedAt: upgradedAt, receiptID: receiptID)
    }

    /// `init?(_:catalog:asOf:upgradedAt:receiptID:)` with the purchase's product already looked up.
    init?(_ purchase: Purchase, product: Product, asOf: Date, upgradedAt: Date? = nil, receiptID: Int64? = nil) {
        guard product.kind != .consumable, product.entitlement != nil else { return nil }
        let fields = purchase.fields
        if let purchased = fields.purchaseDate, purchased > asOf { return nil }
        let accessEnd: Expiry?
        switch product.kind {
        case .autoRenewable:
            accessEnd = fields.expiresDate.map { Expiry($0) }
        case .nonConsumable:
            accessEnd = .never
        case .nonRenewing:
            if let purchased = fields.purchaseDate, let duration = product.duration {
                accessEnd = Expiry(duration.added(to: purchased))
            } else {
                accessEnd = nil
            }
        case .consumable:
            return nil
        }
        self.init(
            transactionID: fields.transactionID,
            originalTransactionID: fields.originalTransactionID,
            productID: product.productID,
            kind: product.kind,
            purchaseDate: fields.purchaseDate,
            accessEnd: accessEnd,
            revocationDate: purchase.revocationHappened(by: asOf)?.date,
            isUpgraded: fields.isUpgraded == true && (upgradedAt.map { $0 <= asOf } ?? true),
            isFamilyRevocation: purchase.isFamilyRevocation,
            source: fields.source,
            evidenceDate: fields.evidenceDate,
            receiptID: receiptID,
            purchase: purchase
        )
    }

    /// CONTRACT §5: "A transaction with `cancellation_date` (refund) counts as never purchased,
    /// unless `is_upgraded` is true." A Family Sharing revocation too.
    public var isRevoked: Bool { revocationDate != nil && !isUpgraded }

    /// Whether the transaction can carry access itself: not revoked, not replaced by an upgrade
    /// ("the upgrade target carries the access"), and with a known end.
    var grantsAccess: Bool { !isRevoked && !isUpgraded && accessEnd != nil }

    /// The subscription chain: `original_transaction_id`, else the transaction itself.
    var chain: String? { originalTransactionID ?? transactionID }

    /// Orders transactions by the end of access they give, then purchase date, then id, so the
    /// winner is the same whatever order Apple listed them in.
    static func byAccessEnd(_ lhs: EntitlementTransaction, _ rhs: EntitlementTransaction) -> Bool {
        if lhs.accessEnd != rhs.accessEnd { return optionalLess(lhs.accessEnd, rhs.accessEnd) }
        return byPurchase(lhs, rhs)
    }

    /// Orders transactions by purchase date (unknown first), then id: "newest" is the last.
    static func byPurchase(_ lhs: EntitlementTransaction, _ rhs: EntitlementTransaction) -> Bool {
        let l = lhs.purchaseDate.map(Expiry.milliseconds(of:))
        let r = rhs.purchaseDate.map(Expiry.milliseconds(of:))
        if l != r { return optionalLess(l, r) }
        return idLess(lhs.transactionID, rhs.transactionID)
    }

    /// Apple's ids are decimal digits: shorter is smaller, then lexicographic. Nil first.
    static func idLess(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): false
        case (nil, _): true
        case (_, nil): false
        case (let l?, let r?): (l.count, l) < (r.count, r)
        }
    }

    private static func optionalLess<T: Comparable>(_ lhs: T?, _ rhs: T?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): false
        case (nil, _): true
        case (_, nil): false
        case (let l?, let r?): l < r
        }
    }
}
