/// `recon_corrections.reason` (CONTRACT §4): why a correction was made. Chosen by
/// `CorrectionPlanner` in the order of docs/reconciliation-rules.md ("Reasons").
public enum CorrectionReason: String, ContractVocabulary {
    /// A purchase the app never granted.
    case purchaseNotGranted = "purchase_not_granted"
    /// A renewal the app missed.
    case renewal
    /// Billing retry inside the grace period: access until the grace period ends.
    case gracePeriod = "grace_period"
    /// Access ran out.
    case expired
    /// The purchase was refunded (counts as never purchased).
    case refund
    /// Family Sharing of the purchase ended (Apple's `FAMILY_REVOKE`, or a family member's copy revoked).
    case familyRevoke = "family_revoke"
    /// A refund the job saw earlier was reversed by Apple.
    case refundReversed = "refund_reversed"
    /// Only invalid receipts carried the entitlement's transactions.
    case invalidReceipt = "invalid_receipt"
    /// Only receipts of the other environment carried the entitlement's transactions.
    case wrongEnvironment = "wrong_environment"
    /// Only receipts of another app carried the entitlement's transactions.
    case bundleMismatch = "bundle_mismatch"
    /// Apple knows no purchase for the entitlement.
    case noPurchase = "no_purchase"
    /// Written by `revert` (CONTRACT §6): puts back what the correction named by `reverts_correction_id`
    /// changed. Never planned from Apple's answers.
    case reverted

    public var description: String { rawValue }
}
