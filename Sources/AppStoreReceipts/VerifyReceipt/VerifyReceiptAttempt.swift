/// Where one receipt's verification stands: the attempt context of `VerifyReceiptClassifier`.
///
/// The classifier, not the client, counts hops and attempts: the client starts with
/// `VerifyReceiptAttempt(endpoint:budget:)`, classifies each answer, and moves on with
/// `next(after:)` until that returns nil.
///
/// ```swift
/// var attempt = VerifyReceiptAttempt(endpoint: .production, budget: budget)
/// while true {
///     let verdict = VerifyReceiptClassifier.verdict(for: send(request, to: attempt.endpoint), attempt: attempt, now: clock.now)
///     guard let next = attempt.next(after: verdict) else { return verdict }
///     if case .transient(_, let retryAfter) = verdict { sleep(retryAfter ?? backoff(attempt.number)) }
///     attempt = next
/// }
/// ```
public struct VerifyReceiptAttempt: Hashable, Sendable {
    /// The endpoint this attempt is sent to.
    public var endpoint: AppStoreEnvironment
    /// 1-based number of this attempt on `endpoint`.
    public var number: Int
    /// How many earlier attempts, on any endpoint, were answered 21002.
    public var earlierMalformedReceiptAnswers: Int
    /// Whether the request was already re-routed once (21007 / 21008); CONTRACT allows one hop.
    public var hasRerouted: Bool
    public var budget: VerifyReceiptRetryBudget

    /// The first attempt for a receipt, on the endpoint of the environment the database serves.
    public init(endpoint: AppStoreEnvironment, budget: VerifyReceiptRetryBudget = VerifyReceiptRetryBudget()) {
        self.init(endpoint: endpoint, number: 1, earlierMalformedReceiptAnswers: 0, hasRerouted: false, budget: budget)
    }

    public init(
        endpoint: AppStoreEnvironment,
        number: Int,
        earlierMalformedReceiptAnswers: Int,
        hasRerouted: Bool,
        budget: VerifyReceiptRetryBudget
    ) {
        self.endpoint = endpoint
        self.number = number
        self.earlierMalformedReceiptAnswers = earlierMalformedReceiptAnswers
        self.hasRerouted = hasRerouted
        self.budget = budget
    }

    /// The attempt to make after `verdict`, or nil when the verdict is final.
    ///
    /// A re-route starts a fresh attempt count on the other endpoint (`--max-attempts` is per
    /// endpoint); 21002 answers are counted across endpoints.
    public func next(after verdict: VerificationVerdict) -> VerifyReceiptAttempt? {
        switch verdict {
        case .transient(let reason, _):
            var next = self
            next.number += 1
            if reason.isMalformedReceiptData { next.earlierMalformedReceiptAnswers += 1 }
            return next
        case .reroute(let environment):
            var next = self
            next.endpoint = environment
            next.number = 1
            next.hasRerouted = true
            return next
        case .valid, .invalid, .configurationError, .unverified, .persistentMalformedReceiptData:
            return nil
        }
    }
}
