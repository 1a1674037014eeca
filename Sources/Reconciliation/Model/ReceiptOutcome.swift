/// What one run concluded about one receipt: `recon_results.outcome` (CONTRACT §4).
///
/// Decided by `ReceiptOutcomeRule`; the table is in docs/reconciliation-rules.md
/// ("Receipt outcomes").
public enum ReceiptOutcome: String, ContractVocabulary {
    /// Apple status 0 or 21006 from the environment this database serves, bundle id accepted.
    case valid
    /// Valid, but only in the other environment (a sandbox receipt in a production database, or
    /// the reverse).
    case misrouted
    /// Apple's definitive no (21003, 21010, a 21002 that persists on data that does not decode),
    /// a bundle id that is not accepted, an Xcode receipt, or data that is not a receipt at all.
    case invalid
    /// No verdict: transient failures outlasted the attempts, or Apple answered something that
    /// says nothing about the receipt. Never a reason to take access away.
    case unverified

    public var description: String { rawValue }
}
