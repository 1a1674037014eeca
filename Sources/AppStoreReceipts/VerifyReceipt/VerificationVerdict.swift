/// What to do with one verifyReceipt exchange, by the rules of CONTRACT §5.
///
/// Produced by `VerifyReceiptClassifier.verdict(for:attempt:now:)`. Two verdicts ask the
/// client to continue (`reroute`, `transient`); the others end the verification of the receipt.
/// `persistentMalformedReceiptData` ends it too but needs the job's local decoding to become
/// `invalid` or `unverified` (`VerifyReceiptClassifier.persistentMalformedReceiptRule`).
public enum VerificationVerdict: Hashable, Sendable {
    /// Status 0 or 21006: the response's receipt data is Apple's truth about the receipt.
    case valid
    /// Status 21007 / 21008 on the first endpoint: send the same request to `environment`.
    case reroute(to: AppStoreEnvironment)
    /// Apple's definitive no (21003, 21010), or a 21002 that persisted on a receipt that also
    /// fails local decoding. Never retried.
    case invalid(InvalidReason)
    /// Try again on the same endpoint after backoff, or after `retryAfter` when the server said
    /// so (`Retry-After`). Only returned while the attempt budget allows another attempt and
    /// `retryAfter` is within the budget's `maxWait`.
    case transient(TransientReason, retryAfter: Duration?)
    /// The request or the job's configuration is wrong (21004 shared secret, 21000, an
    /// endpoint answering 404...): every receipt would fail the same way. Stop the run (exit 78).
    case configurationError(ConfigurationProblem)
    /// No verdict on the receipt: an Apple-side fault, an unknown status, or retries used up.
    /// The receipt ends `unverified`.
    case unverified(UnverifiedReason)
    /// 21002 answered up to its separate attempt budget. The job decides with local decoding:
    /// `VerifyReceiptClassifier.persistentMalformedReceiptRule(localDecodingSucceeded:)`.
    case persistentMalformedReceiptData

    /// Whether the client must stop sending this receipt (everything but `reroute` and `transient`).
    public var isFinal: Bool {
        switch self {
        case .reroute, .transient: false
        case .valid, .invalid, .configurationError, .unverified, .persistentMalformedReceiptData: true
        }
    }
}

extension VerificationVerdict: CustomStringConvertible {
    /// One line for logs and `recon_results.detail`.
    public var description: String {
        switch self {
        case .valid:
            return "valid"
        case .reroute(let environment):
            return "reroute to \(environment)"
        case .invalid(let reason):
            return "invalid: \(reason)"
        case .transient(let reason, let retryAfter):
            guard let retryAfter else { return "transient: \(reason)" }
            return "transient: \(reason) (retry after \(retryAfter))"
        case .configurationError(let problem):
            return "configuration error: \(problem)"
        case .unverified(let reason):
            return "unverified: \(reason)"
        case .persistentMalformedReceiptData:
            return "status \(VerifyReceiptStatus.malformedReceiptData) persisted"
        }
    }
}
