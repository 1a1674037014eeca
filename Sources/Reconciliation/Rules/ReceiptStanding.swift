/// How a receipt's transactions stand in its user's truth, by docs/reconciliation-rules.md
/// ("Which transactions count"). Also what a revoke's reason names when no counting receipt
/// carried the entitlement ("Reasons", `revoke`).
public enum ReceiptStanding: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `valid`, or `misrouted` under `--sandbox-policy flag` or for a sandbox tester.
    case counted
    /// `misrouted` under `--sandbox-policy revoke` for a user who is not a sandbox tester.
    case misroutedNotCounted = "misrouted_not_counted"
    /// `invalid` for a reason other than the bundle id.
    case invalidReceipt = "invalid_receipt"
    /// `invalid` because the bundle id is not accepted.
    case bundleMismatch = "bundle_mismatch"
    /// `unverified` and transient (no verdict), or untrusted (data nothing Apple signed vouches for):
    /// contributes nothing, keeps nothing.
    case unverified
    /// `unverified` and permanent: no verdict, but the entitlements it names are not taken away.
    case permanentlyUnverified = "permanently_unverified"

    public var description: String { rawValue }
}
