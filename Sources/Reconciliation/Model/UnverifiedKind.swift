/// Whether asking Apple again may change an `unverified` outcome, and what the row keeps (CONTRACT §5).
public enum UnverifiedKind: String, Hashable, Sendable, CaseIterable {
    /// 429, 5xx, transport, Apple's retryable codes: the purchase may well exist. Holds back every
    /// `revoke` and `shorten` of the user in the run.
    case transient
    /// Apple's signature or Apple's answer vouches for the row, but gives no verdict now: a signing root
    /// the job does not trust with no Server API to ask, data Apple signed whose ids Apple cannot find, an
    /// id Apple answered for before and now cannot find, an account or app Apple no longer finds, a bundle
    /// id the key is refused for: asking again will not change it. Keeps the entitlements the row names,
    /// holds back nothing else.
    case permanent
    /// Data nothing Apple vouches for (a chain ending at a root that is not configured, which anyone can
    /// make) and no answer of Apple's about it: asking again will not change it, and it keeps nothing and
    /// holds back nothing (CONTRACT §5: only evidence Apple signed keeps an entitlement).
    case untrusted

    /// Whether asking again will not change it: counted apart, flagged, and an answer for the exit code.
    public var isPermanent: Bool { self != .transient }

    /// Whether the entitlements the row names are kept although it gives no verdict.
    public var keepsNamedEntitlements: Bool { self == .permanent }

    /// The words `recon_results.detail` and `verify-user` end an unverified row's detail with.
    public var explanation: String {
        switch self {
        case .transient: "transient: asking again may change it; no revoke or shorten for this user in this run"
        case .permanent: "permanent: asking again will not change it; the entitlements it names are kept"
        case .untrusted:
            "permanent: asking again will not change it; not signed by Apple, so it keeps nothing and holds back nothing"
        }
    }

    /// The kind a stored `recon_results.detail` of an `unverified` row ends with (transient when none does).
    public init(detail: String) {
        self = Self.allCases.first { detail.hasSuffix("(\($0.explanation))") } ?? .transient
    }

    /// The suffixes of the stored details of permanent kinds, for SQL that counts them.
    public static var permanentSuffixes: [String] {
        allCases.filter(\.isPermanent).map { "(\($0.explanation))" }
    }
}
