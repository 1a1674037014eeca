import AppStoreReceipts

/// Apple's answer says the job's configuration is wrong (21004 shared secret, 21000 bad request,
/// or an endpoint answering 4xx): every receipt would fail the same way, so this is no outcome
/// of the receipt. CONTRACT §7: the run aborts at once, before any correction of that run is
/// applied, and exits 78.
public struct ConfigurationAbort: Error, Hashable, Sendable, CustomStringConvertible {
    public var problem: VerificationVerdict.ConfigurationProblem
    /// The status Apple sent, when the problem came as a status.
    public var appleStatus: Int?

    public init(problem: VerificationVerdict.ConfigurationProblem, appleStatus: Int? = nil) {
        self.problem = problem
        self.appleStatus = appleStatus
    }

    /// For `recon_runs.abort_reason` and stderr; never the secret.
    public var description: String {
        switch problem {
        case .sharedSecretMismatch: "configuration error: \(problem) (APPLE_SHARED_SECRET is wrong or was rotated)"
        case .badRequest, .httpStatus, .serverAPI: "configuration error: \(problem)"
        }
    }
}
