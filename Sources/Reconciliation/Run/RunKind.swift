/// `recon_runs.kind` (CONTRACT §4).
public enum RunKind: String, ContractVocabulary {
    case nightly
    case user
    /// `revert --run ID`: undid what another run changed (`recon_runs.reverts_run_id`). Never a night:
    /// the last success, the report's default run and its chart count nightly runs only.
    case revert
}

/// `recon_runs.status` (CONTRACT §4).
public enum RunStatus: String, ContractVocabulary {
    /// Started and not finished; a row left so by a dead process becomes `interrupted`.
    case running
    /// Every selected receipt was verified conclusively (exit 0).
    case completed
    /// Finished, but some receipts stayed `unverified` (exit 1).
    case partial
    /// A circuit breaker tripped, or Apple answered 21004/21000 (exit 69 / 78).
    case aborted
    /// An internal or database error ended the run (exit 69 / 70).
    case failed
    /// SIGINT/SIGTERM, or the process died (exit 75).
    case interrupted
}
