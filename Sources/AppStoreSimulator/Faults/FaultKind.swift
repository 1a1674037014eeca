/// The failures the simulator injects, each one Apple (or the path to it) is known to produce
/// (verifyreceipt.md §2, reconciliation.md §2 row 14).
public enum FaultKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `{"status":21005}`: the receipt server was temporarily unable to provide the receipt.
    case status21005 = "status_21005"
    /// `{"status":21009}`: internal data access error.
    case status21009 = "status_21009"
    /// `{"status":21199,"is_retryable":true}`.
    case status21199Retryable = "status_21199_retryable"
    /// `{"status":21199,"is_retryable":false}`: an internal error Apple says not to retry (the job
    /// ends the receipt `unverified`).
    case status21199NotRetryable = "status_21199_not_retryable"
    /// An HTML `503 Service Unavailable` page with `Retry-After`, as a load balancer sends it.
    case serviceUnavailable = "http_503"
    /// The connection is reset (TCP RST) instead of answered.
    case connectionReset = "connection_reset"
    /// Nothing comes back for longer than a client's timeout (`SimulatorOptions.stallDuration`), then the
    /// connection closes without an answer.
    case stall

    /// How `--fault-rate` is split when no mix is given: mostly retryable statuses and 503s, some
    /// resets, few stalls (they cost the job a whole timeout), few non-retryable 21199s.
    public static let defaultMix: [FaultKind: Double] = [
        .status21005: 0.20, .status21009: 0.15, .status21199Retryable: 0.15, .status21199NotRetryable: 0.05,
        .serviceUnavailable: 0.20, .connectionReset: 0.15, .stall: 0.10,
    ]
}
