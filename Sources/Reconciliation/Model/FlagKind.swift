/// `recon_flags.kind` (CONTRACT §4): something a human should look at. One flag per receipt per
/// kind per run, or per user where no receipt applies.
///
/// `allCases` is also the order flags of one receipt are written in.
public enum FlagKind: String, ContractVocabulary {
    /// The receipt is `invalid` for a reason other than its bundle id.
    case invalidReceipt = "invalid_receipt"
    /// A sandbox receipt in a database that serves production (`misrouted`).
    case sandboxInProduction = "sandbox_in_production"
    /// A production receipt in a database that serves sandbox (`misrouted`).
    case productionInSandbox = "production_in_sandbox"
    /// Apple decoded the receipt, but for an app whose bundle id is not accepted.
    case bundleMismatch = "bundle_mismatch"
    /// An `original_transaction_id` of the receipt is also on a receipt of another user.
    case sharedTransaction = "shared_transaction"
    /// A transaction of the receipt was refunded (revoked, not an upgrade, not Family Sharing).
    case refunded
    /// A family member's copy of a purchase was revoked: Family Sharing ended for it (not a refund).
    case familyRevoked = "family_revoked"
    /// A transaction's `product_id` is not in `products`.
    case unknownProduct = "unknown_product"
    /// The receipt ended `unverified`.
    case unverified
    /// Per user: an active `app_store` entitlement row and no receipt at all.
    case entitlementWithoutReceipt = "entitlement_without_receipt"

    public var description: String { rawValue }
}
