/// `recon_corrections.action` (CONTRACT §4): what a correction does to an entitlement row.
public enum CorrectionAction: String, ContractVocabulary {
    /// Apple says active; the row is missing or inactive. Sets `active = true` and the truth's expiry.
    case grant
    /// The row is active; Apple says not. Sets `active = false`, keeps `expires_at`.
    case revoke
    /// Both active; Apple's expiry is later than the row's.
    case extend
    /// Both active; Apple's expiry is earlier than the row's.
    case shorten

    public var description: String { rawValue }
}
