/// `--sandbox-policy`: what transactions of `misrouted` receipts are worth (CONTRACT §5).
public enum SandboxPolicy: String, ContractVocabulary {
    /// Misrouted receipts grant nothing (except to users in `sandbox_testers`), so access that
    /// rests on them only is revoked with reason `wrong_environment`. The default.
    case revoke
    /// Misrouted receipts count like valid ones; they are only flagged.
    case flag

    public var description: String { rawValue }
}
