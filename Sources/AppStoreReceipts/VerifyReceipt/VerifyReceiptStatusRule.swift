/// What CONTRACT §5 says to do with one Apple `status`, before the attempt context is considered.
///
/// The table itself is `VerifyReceiptStatus.rule`.
public enum VerifyReceiptStatusRule: Hashable, Sendable {
    /// 0, 21006.
    case valid
    /// 21007 → sandbox, 21008 → production; at most one hop.
    case reroute(to: AppStoreEnvironment)
    /// 21003, 21010: never retried.
    case invalid(VerificationVerdict.InvalidReason)
    /// 21005, 21009: retried within `maxAttempts`.
    case retry
    /// 21002: retried within the smaller `maxMalformedReceiptAttempts`.
    case retryWithinMalformedReceiptBudget
    /// 21100-21199: retried when `is_retryable` / `is-retryable` is true or absent; otherwise
    /// `unverified`.
    case retryUnlessMarkedNotRetryable
    /// 21004, 21000: never retried; the run stops.
    case configurationError(VerificationVerdict.ConfigurationProblem)
    /// Undocumented statuses, 21001 included: no verdict on the receipt.
    case unverified
}

extension VerifyReceiptStatus {
    /// The CONTRACT §5 rule for this status.
    public var rule: VerifyReceiptStatusRule {
        switch self {
        case .valid, .subscriptionExpired: .valid
        case .sandboxReceiptSentToProduction: .reroute(to: .sandbox)
        case .productionReceiptSentToSandbox: .reroute(to: .production)
        case .receiptNotAuthenticated: .invalid(.receiptNotAuthenticated)
        case .accountNotFound: .invalid(.accountNotFound)
        case .receiptServerUnavailable, .internalDataAccessError: .retry
        case .malformedReceiptData: .retryWithinMalformedReceiptBudget
        case .internalError: .retryUnlessMarkedNotRetryable
        case .sharedSecretMismatch: .configurationError(.sharedSecretMismatch)
        case .badRequest: .configurationError(.badRequest)
        case .noLongerSent, .unknown: .unverified
        }
    }
}
