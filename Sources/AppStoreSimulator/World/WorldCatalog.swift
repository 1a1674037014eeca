import AppStoreReceipts

/// The simulated app and what it sells: fixed, so every world of every seed has the same catalog.
///
/// `premium` comes from two auto-renewables in one subscription group (monthly and yearly, so upgrades
/// and downgrades exist), `pro` from a non-consumable, `season_pass` from a non-renewing subscription of
/// 90 days; coins are consumable. `promo.bundle` is sold by the App Store but missing from the app's
/// `products` table.
public enum WorldCatalog {
    /// The app's bundle id: what `APPLE_BUNDLE_IDS` is set to in the expected file's assumptions.
    public static let appBundleID = "com.example.recon"
    /// A white-label clone of the app that shares its backend and product ids: its receipts reach our
    /// database and are valid at Apple, but for another bundle (`bundle_mismatch`).
    public static let cloneBundleID = "com.example.recon.clone"
    /// App Store ids of the two apps (`app_item_id`; 0 in the sandbox).
    static let appItemID: Int64 = 1_450_637_621
    static let cloneItemID: Int64 = 1_450_637_699
    /// Each app's Apple ID by bundle id (`APPLE_APP_APPLE_IDS`): what its production notifications
    /// carry as `appAppleId`.
    public static let appAppleIDs: [String: Int64] = [appBundleID: appItemID, cloneBundleID: cloneItemID]
    /// `subscription_group_identifier` of the premium group.
    public static let premiumGroupID = "20514853"

    public static let premiumMonthly = WorldProduct(
        id: "com.example.recon.premium.monthly", kind: .autoRenewable, entitlement: "premium", period: .month,
        durationDays: nil, isInProductsTable: true, itemID: 1_450_640_001)
    public static let premiumYearly = WorldProduct(
        id: "com.example.recon.premium.yearly", kind: .autoRenewable, entitlement: "premium", period: .year,
        durationDays: nil, isInProductsTable: true, itemID: 1_450_640_002)
    public static let pro = WorldProduct(
        id: "com.example.recon.pro", kind: .nonConsumable, entitlement: "pro", period: nil,
        durationDays: nil, isInProductsTable: true, itemID: 1_450_640_003)
    public static let seasonPass = WorldProduct(
        id: "com.example.recon.seasonpass", kind: .nonRenewing, entitlement: "season_pass", period: nil,
        durationDays: 90, isInProductsTable: true, itemID: 1_450_640_004)
    public static let coins = WorldProduct(
        id: "com.example.recon.coins100", kind: .consumable, entitlement: nil, period: nil,
        durationDays: nil, isInProductsTable: true, itemID: 1_450_640_005)
    public static let promoBundle = WorldProduct(
        id: "com.example.recon.promo.bundle", kind: .nonConsumable, entitlement: nil, period: nil,
        durationDays: nil, isInProductsTable: false, itemID: 1_450_640_006)

    /// Every product the App Store sells, in a fixed order.
    public static let products: [WorldProduct] = [premiumMonthly, premiumYearly, pro, seasonPass, coins, promoBundle]

    /// The rows of the app's `products` table, in this order.
    public static var productsTable: [WorldProduct] { products.filter(\.isInProductsTable) }

    /// The entitlements the products table names, sorted.
    public static let entitlements = ["premium", "pro", "season_pass"]

    /// Looks a product up by id (six products: a linear scan beats hashing).
    public static func product(_ id: String) -> WorldProduct? {
        products.first { $0.id == id }
    }

    /// The app's `products.entitlement` for a product id, as the job would read it (nil when the product
    /// is not in the table or grants nothing).
    public static func tableProduct(_ id: String) -> WorldProduct? {
        products.first { $0.id == id && $0.isInProductsTable }
    }
}
