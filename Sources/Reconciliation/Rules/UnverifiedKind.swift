/// Whether asking Apple again may change an `unverified` outcome (CONTRACT §5).
public enum UnverifiedKind: String, Hashable, Sendable {
    /// 429, 5xx, transport, Apple's retryable codes: the purchase may well exist. Holds back every
    /// `revoke` and `shorten` of the user in the run.
    case transient
    /// A signing root the job does not trust with no Server API to ask, an id Apple answered for before
    /// and now cannot find, an account or app Apple no longer finds, a bundle id the key is refused for:
    /// asking again will not change it. Keeps the entitlements the row names, holds back nothing else.
    case permanent

    /// The words `recon_results.detail` and `verify-user` end an unverified row's detail with.
    public var explanation: String {
        switch self {
        case .transient: "transient: asking again may change it; no revoke or shorten for this user in this run"
        case .permanent: "permanent: asking again will not change it; the entitlements it names are kept"
        }
    }
}
