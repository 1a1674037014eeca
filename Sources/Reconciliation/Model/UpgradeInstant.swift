import Foundation

/// When a subscription period was upgraded away from, as Apple's data carries it (CONTRACT §9, "As of":
/// an upgrade after the instant of judgement has not happened yet, and the period it ends still grants).
///
/// Apple dates an upgrade on the period it replaced: the App Store Server API and StoreKit 2 set
/// `revocationDate` beside `isUpgraded`, verifyReceipt `cancellation_date` beside `is_upgraded`
/// (both read into `Purchase.revocation`). When the period carries no date, the upgrade is when the
/// period replacing it began: the first purchase of another product in the same chain (an upgrade
/// inside a subscription group keeps `original_transaction_id`) after the upgraded period's purchase and
/// before its end. Apple saying `is_upgraded` with neither leaves the upgrade undated: it counts at any
/// instant, as Apple says it.
enum UpgradeInstant {
    /// The upgrade's instant for each of `purchases` (in their order): nil for a purchase not upgraded,
    /// or upgraded at an instant nothing in `purchases` tells.
    static func of(_ purchases: [Purchase]) -> [Date?] {
        purchases.map { purchase in
            guard purchase.isUpgraded == true else { return nil }
            if let date = purchase.revocation?.date { return date }
            return replacementStart(of: purchase, among: purchases)
        }
    }

    /// The purchase date of the period that replaced `upgraded`, when `purchases` hold it.
    static func replacementStart(of upgraded: Purchase, among purchases: [Purchase]) -> Date? {
        guard let chain = upgraded.originalTransactionID, let bought = upgraded.purchaseDate else { return nil }
        var earliest: Date?
        for candidate in purchases where candidate.originalTransactionID == chain {
            guard candidate.productID != upgraded.productID, let start = candidate.purchaseDate, start > bought
            else { continue }
            if let end = upgraded.expiresDate, start >= end { continue }
            if earliest.map({ start < $0 }) ?? true { earliest = start }
        }
        return earliest
    }
}
