import AppStoreReceipts
import CivilTime
import Foundation
import Reconciliation

/// A small world for the rules' tests: one catalog, times relative to one `as_of`, and builders
/// that read like the situations they describe.
enum World {
    /// 2024-06-01T00:00:00Z.
    static let asOf = Date(timeIntervalSince1970: 1_717_200_000)

    static let monthly = "com.app.premium.monthly"
    static let yearly = "com.app.premium.yearly"
    static let lifetime = "com.app.lifetime"
    static let pass30 = "com.app.pass.30days"
    static let coins = "com.app.coins"

    static let catalog = ProductCatalog([
        Product(productID: monthly, kind: .autoRenewable, entitlement: "premium"),
        Product(productID: yearly, kind: .autoRenewable, entitlement: "premium"),
        Product(productID: lifetime, kind: .nonConsumable, entitlement: "lifetime"),
        Product(productID: pass30, kind: .nonRenewing, entitlement: "pass", duration: CalendarDuration(days: 30)),
        Product(productID: coins, kind: .consumable, entitlement: nil),
    ])

    /// `as_of` plus some days (negative: before).
    static func day(_ days: Double) -> Date { asOf.addingTimeInterval(days * 86_400) }

    /// One period of an auto-renewable subscription.
    static func subscription(
        _ id: String,
        chain: String = "1000",
        product: String = monthly,
        bought: Double,
        expires: Double,
        refunded: Double? = nil,
        upgraded: Bool = false,
        family: Bool = false,
        revocationType: String? = nil,
        percentage: Int64? = nil,
        price: Int64? = nil
    ) -> Purchase {
        var fields = Purchase.Fields(source: .verifyReceipt)
        fields.productID = product
        fields.transactionID = id
        fields.originalTransactionID = chain
        fields.quantity = 1
        fields.purchaseDate = day(bought)
        fields.expiresDate = day(expires)
        fields.revocation = refunded.map {
            Revocation(date: day($0), reason: 0, type: revocationType, percentageMilliunits: percentage)
        }
        fields.isUpgraded = upgraded ? true : nil
        fields.ownership = family ? "FAMILY_SHARED" : "PURCHASED"
        fields.price = price.map(CurrencyAmount.init(milliunits:))
        fields.currency = price == nil ? nil : "USD"
        return Purchase(fields)
    }

    /// A purchase without expiry (non-consumable, non-renewing, consumable).
    static func purchase(_ id: String, product: String, bought: Double, refunded: Double? = nil) -> Purchase {
        var fields = Purchase.Fields(source: .verifyReceipt)
        fields.productID = product
        fields.transactionID = id
        fields.originalTransactionID = id
        fields.quantity = 1
        fields.purchaseDate = day(bought)
        fields.revocation = refunded.map { Revocation(date: day($0)) }
        fields.ownership = "PURCHASED"
        return Purchase(fields)
    }

    /// Apple's renewal state, read at `read` days from `as_of` (default: at `as_of`).
    static func gracePeriod(chain: String = "1000", until: Double, read: Double = 0) -> SubscriptionRenewal {
        SubscriptionRenewal(
            originalTransactionID: chain, productID: monthly, gracePeriodExpiresDate: day(until),
            evidenceDate: day(read))
    }

    static func billingRetry(chain: String = "1000") -> SubscriptionRenewal {
        SubscriptionRenewal(originalTransactionID: chain, productID: monthly, evidenceDate: asOf)
    }

    /// Receipt 1, `valid`.
    static func receipt(_ transactions: [Purchase], renewal: [SubscriptionRenewal] = []) -> UserReceipt {
        receipt(1, .valid, transactions, renewal: renewal)
    }

    /// A `valid` receipt.
    static func receipt(_ id: Int64, _ transactions: [Purchase], renewal: [SubscriptionRenewal] = []) -> UserReceipt {
        receipt(id, .valid, transactions, renewal: renewal)
    }

    /// A receipt with this run's outcome; the outcome's flag is the usual one unless given.
    static func receipt(
        _ id: Int64,
        _ outcome: ReceiptOutcome,
        flag: FlagKind? = nil,
        unverified: UnverifiedKind? = nil,
        _ transactions: [Purchase],
        renewal: [SubscriptionRenewal] = []
    ) -> UserReceipt {
        let defaultFlag: FlagKind? =
            switch outcome {
            case .valid: nil
            case .misrouted: .sandboxInProduction
            case .invalid: .invalidReceipt
            case .unverified: .unverified
            }
        return UserReceipt(
            receiptID: id,
            classification: ReceiptClassification(
                outcome: outcome, outcomeFlag: flag ?? defaultFlag, detail: "test", unverified: unverified),
            purchases: transactions,
            renewals: renewal)
    }

    static func row(
        _ entitlement: String = "premium",
        active: Bool = true,
        expires: Double?,
        product: String? = monthly,
        source: String = "app_store"
    ) -> EntitlementRow {
        EntitlementRow(
            entitlement: entitlement, active: active, expiresAt: expires.map(day), productID: product,
            originalTransactionID: "1000", source: source)
    }

    /// An instant relative to `as_of`, as tables write it: `+30d`, `-2d`, `+3600s`, `never`.
    static func relative(_ date: Date?) -> String {
        guard let date else { return "never" }
        let milliseconds = Int64((date.timeIntervalSince(asOf) * 1_000).rounded())
        if milliseconds % 86_400_000 == 0 { return String(format: "%+lldd", milliseconds / 86_400_000) }
        if milliseconds % 1_000 == 0 { return String(format: "%+llds", milliseconds / 1_000) }
        return String(format: "%+lldms", milliseconds)
    }

    /// A correction the way a reader of `recon_corrections` sees it:
    /// `premium extend renewal -> until +30d`, `premium revoke refund -> inactive`.
    static func render(_ correction: CorrectionRecord) -> String {
        let after = correction.afterActive ? "until \(relative(correction.afterExpiresAt))" : "inactive"
        return "\(correction.entitlement) \(correction.action) \(correction.reason) -> \(after)"
    }
}
