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
    /// `cancellation_date`: refunded, or (with `isUpgraded`) replaced by an upgrade.
    public var cancellationDate: Date?
    public var isUpgraded: Bool

    public init(
        transactionID: String?,
        originalTransactionID: String?,
        productID: String,
        kind: ProductKind,
        purchaseDate: Date?,
        accessEnd: Expiry?,
        cancellationDate: Date? = nil,
        isUpgraded: Bool = false
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.kind = kind
        self.purchaseDate = purchaseDate
        self.accessEnd = accessEnd
        self.cancellationDate = cancellationDate
        self.isUpgraded = isUpgraded
    }

    /// Apple's transaction read through `products`; nil when the product is unknown, has no
    /// entitlement, or is a consumable ("Transactions whose product is unknown or consumable
    /// grant nothing").
    public init?(_ transaction: VerifyReceiptTransaction, catalog: ProductCatalog) {
        guard let product = catalog[transaction.productID] else { return nil }
        self.init(transaction, product: product)
    }

    /// `init?(_:catalog:)` with the transaction's product already looked up.
    init?(_ transaction: VerifyReceiptTransaction, product: Product) {
        guard product.kind != .consumable, product.entitlement != nil else { return nil }
        let accessEnd: Expiry?
        switch product.kind {
        case .autoRenewable:
            accessEnd = transaction.expiresDate.map { Expiry($0) }
        case .nonConsumable:
            accessEnd = .never
        case .nonRenewing:
            if let purchase = transaction.purchaseDate, let duration = product.duration {
                accessEnd = Expiry(duration.added(to: purchase))
            } else {
                accessEnd = nil
            }
        case .consumable:
            return nil
        }
        self.init(
            transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            productID: product.productID,
            kind: product.kind,
            purchaseDate: transaction.purchaseDate,
            accessEnd: accessEnd,
            cancellationDate: transaction.cancellationDate,
            isUpgraded: transaction.isUpgraded ?? false
        )
    }

    /// CONTRACT §5: "A transaction with `cancellation_date` (refund) counts as never purchased,
    /// unless `is_upgraded` is true."
    public var isRefunded: Bool { cancellationDate != nil && !isUpgraded }

    /// Whether the transaction can carry access itself: not refunded, not replaced by an upgrade
    /// ("the upgrade target carries the access"), and with a known end.
    var grantsAccess: Bool { !isRefunded && !isUpgraded && accessEnd != nil }

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
