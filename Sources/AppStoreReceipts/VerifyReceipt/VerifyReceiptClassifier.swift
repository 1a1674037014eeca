import Foundation

/// The routing and retry rules of CONTRACT §5 ("What the truth is"), as pure functions.
///
/// Each rule of the contract has a function named after it:
/// - routing (21007 → sandbox, 21008 → production, at most one hop): `routingRule`
/// - retry with backoff, honouring `Retry-After`, within `--max-attempts`: `retryRule`
/// - a `Retry-After` beyond `--max-retry-wait` is not waited out: `waitRule`
/// - 21002 retried, bounded: `malformedReceiptRule`
/// - 21100-21199 retried when `is_retryable` is true or absent, else unverified: `appleInternalErrorRule`
/// - a 21002 that persists is invalid only if local decoding fails too: `persistentMalformedReceiptRule`
/// - never retried (21003, 21004, 21010, ...): the table `VerifyReceiptStatus.rule`
/// - HTTP statuses: the table `VerifyReceiptHTTPStatusRule(statusCode:)`
public enum VerifyReceiptClassifier {
    /// The verdict on one exchange with verifyReceipt.
    ///
    /// - Parameters:
    ///   - exchange: what came back.
    ///   - attempt: where this receipt's verification stands (endpoint, attempt number, hops).
    ///   - now: the current time, to turn a `Retry-After` HTTP date into a wait.
    /// - Returns: a `transient` verdict only if the budget allows another attempt; otherwise
    ///   the final verdict.
    public static func verdict(
        for exchange: VerifyReceiptExchange,
        attempt: VerifyReceiptAttempt,
        now: Date
    ) -> VerificationVerdict {
        switch exchange {
        case .transportFailed(let failure):
            return retryRule(.transport(failure), retryAfter: nil, attempt: attempt)

        case .httpResponse(let statusCode, let retryAfterHeader, let body):
            let retryAfter = retryAfterHeader.flatMap { RetryAfter.parse($0, now: now) }
            switch VerifyReceiptHTTPStatusRule(statusCode: statusCode) {
            case .retry:
                return retryRule(.httpStatus(statusCode), retryAfter: retryAfter, attempt: attempt)
            case .configurationError:
                return .configurationError(.httpStatus(statusCode))
            case .unverified:
                return .unverified(.httpStatus(statusCode))
            case .readBody:
                switch body {
                case .failure(let error):
                    return retryRule(.undecodableBody(error), retryAfter: retryAfter, attempt: attempt)
                case .success(let response):
                    return verdict(for: response, retryAfter: retryAfter, attempt: attempt)
                }
            }
        }
    }

    /// The verdict on a decoded response, by `VerifyReceiptStatus.rule`.
    static func verdict(
        for response: VerifyReceiptResponse,
        retryAfter: Duration?,
        attempt: VerifyReceiptAttempt
    ) -> VerificationVerdict {
        let status = response.status
        switch status.rule {
        case .valid:
            return .valid
        case .reroute(let environment):
            return routingRule(status, toward: environment, attempt: attempt)
        case .invalid(let reason):
            return .invalid(reason)
        case .retry:
            return retryRule(.appleStatus(status), retryAfter: retryAfter, attempt: attempt)
        case .retryWithinMalformedReceiptBudget:
            return malformedReceiptRule(retryAfter: retryAfter, attempt: attempt)
        case .retryUnlessMarkedNotRetryable:
            return appleInternalErrorRule(
                status, isRetryable: response.isRetryable, retryAfter: retryAfter, attempt: attempt)
        case .configurationError(let problem):
            return .configurationError(problem)
        case .unverified:
            return .unverified(.unknownStatus(response.rawStatus))
        }
    }

    /// Routing: 21007 moves to sandbox, 21008 to production, at most one hop.
    ///
    /// A second hop, or a hop to the endpoint that just answered, would loop (some libraries
    /// loop forever here), so it ends `unverified` instead.
    static func routingRule(
        _ status: VerifyReceiptStatus,
        toward environment: AppStoreEnvironment,
        attempt: VerifyReceiptAttempt
    ) -> VerificationVerdict {
        guard !attempt.hasRerouted, environment != attempt.endpoint else {
            return .unverified(.hopLimitReached(status))
        }
        return .reroute(to: environment)
    }

    /// Retry with backoff while `--max-attempts` allows another attempt on this endpoint.
    static func retryRule(
        _ reason: VerificationVerdict.TransientReason,
        retryAfter: Duration?,
        attempt: VerifyReceiptAttempt
    ) -> VerificationVerdict {
        switch attempt.budget.permission(afterAttempt: attempt.number, retryAfter: retryAfter) {
        case .attemptsSpent: return .unverified(.retriesExhausted(reason))
        case .waitTooLong, .granted: return waitRule(reason, retryAfter: retryAfter, attempt: attempt)
        }
    }

    /// A retry the budget allows waits out the server's `Retry-After`, unless it asks for more than
    /// the budget's `maxWait`: then the receipt ends `unverified` for this run, and the next run asks
    /// again. Waiting would hold the receipt's lane (and its user's writes) for as long as the server
    /// likes, and drains after a signal would wait as long.
    static func waitRule(
        _ reason: VerificationVerdict.TransientReason,
        retryAfter: Duration?,
        attempt: VerifyReceiptAttempt
    ) -> VerificationVerdict {
        guard let retryAfter, attempt.budget.permission(afterAttempt: 0, retryAfter: retryAfter) == .waitTooLong
        else { return .transient(reason, retryAfter: retryAfter) }
        return .unverified(.retryAfterBeyondLimit(requested: retryAfter, limit: attempt.budget.maxWait, last: reason))
    }

    /// 21002 is retried, bounded by `maxMalformedReceiptAttempts` as well as `maxAttempts`;
    /// when it persists the job resolves it with `persistentMalformedReceiptRule`.
    static func malformedReceiptRule(retryAfter: Duration?, attempt: VerifyReceiptAttempt) -> VerificationVerdict {
        let malformedAnswers = attempt.earlierMalformedReceiptAnswers + 1
        guard malformedAnswers < attempt.budget.maxMalformedReceiptAttempts,
            attempt.budget.permission(afterAttempt: attempt.number, retryAfter: nil) == .granted
        else { return .persistentMalformedReceiptData }
        return waitRule(.appleStatus(.malformedReceiptData), retryAfter: retryAfter, attempt: attempt)
    }

    /// 21100-21199: retried when `is_retryable` / `is-retryable` is true or absent; marked not
    /// retryable, it ends `unverified`, because an Apple-side fault is no verdict on the receipt.
    static func appleInternalErrorRule(
        _ status: VerifyReceiptStatus,
        isRetryable: Bool?,
        retryAfter: Duration?,
        attempt: VerifyReceiptAttempt
    ) -> VerificationVerdict {
        if isRetryable == false {
            return .unverified(.appleInternalErrorNotRetryable(status))
        }
        return retryRule(.appleStatus(status), retryAfter: retryAfter, attempt: attempt)
    }

    /// A receipt whose 21002 persists ends `invalid` only when it also fails local decoding;
    /// otherwise `unverified` (Apple has answered 21002 to valid receipts during outages).
    ///
    /// - Parameter localDecodingSucceeded: whether the job's local receipt decoder could read
    ///   the receipt (`LocalReceipt` decoding, no network).
    /// - Returns: the final verdict that replaces `.persistentMalformedReceiptData`.
    public static func persistentMalformedReceiptRule(localDecodingSucceeded: Bool) -> VerificationVerdict {
        localDecodingSucceeded
            ? .unverified(.malformedReceiptDataButDecodesLocally)
            : .invalid(.malformedReceiptData)
    }
}
