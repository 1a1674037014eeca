extension VerificationVerdict {
    /// Why Apple's answer makes the receipt `invalid`.
    public enum InvalidReason: Hashable, Sendable, CustomStringConvertible {
        /// 21003: the receipt could not be authenticated.
        case receiptNotAuthenticated
        /// 21010: the user account cannot be found or was deleted; treat as never purchased.
        case accountNotFound
        /// 21002 persisted through its attempt budget and the receipt fails local decoding too.
        case malformedReceiptData

        /// The Apple status behind the verdict.
        public var appleStatus: VerifyReceiptStatus {
            switch self {
            case .receiptNotAuthenticated: .receiptNotAuthenticated
            case .accountNotFound: .accountNotFound
            case .malformedReceiptData: .malformedReceiptData
            }
        }

        public var description: String {
            switch self {
            case .receiptNotAuthenticated, .accountNotFound: "status \(appleStatus)"
            case .malformedReceiptData: "status \(appleStatus) persisted and the receipt fails local decoding"
            }
        }
    }

    /// Why an attempt failed in a way worth repeating.
    public enum TransientReason: Hashable, Sendable, CustomStringConvertible {
        /// No HTTP response: connection failure or timeout.
        case transport(VerifyReceiptTransportFailure)
        /// HTTP 408, 425, 429 or 5xx.
        case httpStatus(Int)
        /// A 2xx answer whose body is not a readable response (HTML page, truncated JSON, ...).
        case undecodableBody(VerifyReceiptDecodingError)
        /// 21002 (bounded), 21005, 21009, or 21100-21199 not marked unretryable.
        case appleStatus(VerifyReceiptStatus)

        /// Whether this is a 21002, which draws on its own, smaller budget.
        public var isMalformedReceiptData: Bool { self == .appleStatus(.malformedReceiptData) }

        public var description: String {
            switch self {
            case .transport(let failure): "\(failure)"
            case .httpStatus(let code): "HTTP \(code)"
            case .undecodableBody(let error): "\(error)"
            case .appleStatus(let status): "status \(status)"
            }
        }
    }

    /// What is wrong with the request or the configuration.
    public enum ConfigurationProblem: Hashable, Sendable, CustomStringConvertible {
        /// 21004: `APPLE_SHARED_SECRET` is wrong or was rotated.
        case sharedSecretMismatch
        /// 21000: Apple could not read the request (not a POST, or not JSON).
        case badRequest
        /// HTTP 400, 401, 403, 404, 405, 407, 410 or 415: the endpoint URL, a proxy or the
        /// request format is wrong, or the endpoint was retired.
        case httpStatus(Int)
        /// The App Store Server API refused the job's credentials or app (401 after a fresh token,
        /// 4000002), or the API key cannot be used.
        case serverAPI(String)

        public var description: String {
            switch self {
            case .sharedSecretMismatch: "status \(VerifyReceiptStatus.sharedSecretMismatch)"
            case .badRequest: "status \(VerifyReceiptStatus.badRequest)"
            case .httpStatus(let code): "HTTP \(code) from the verifyReceipt endpoint"
            case .serverAPI(let detail): detail
            }
        }
    }

    /// Why there is no verdict on the receipt.
    public enum UnverifiedReason: Hashable, Sendable, CustomStringConvertible {
        /// 21100-21199 with `is_retryable` false: Apple's fault, no statement about the receipt.
        case appleInternalErrorNotRetryable(VerifyReceiptStatus)
        /// A status Apple does not document (21001, 2, 99999...), kept as sent.
        case unknownStatus(Int)
        /// 21007 / 21008 after the one allowed hop, or pointing at the endpoint that sent it.
        case hopLimitReached(VerifyReceiptStatus)
        /// The attempt budget ran out; the last failure is kept.
        case retriesExhausted(TransientReason)
        /// An HTTP status that is neither success, retryable nor a configuration problem
        /// (413 Payload Too Large, 3xx, ...).
        case httpStatus(Int)
        /// 21002 persisted, but the receipt decodes locally: possibly an outage at Apple (as on
        /// 2023-02-07), so no verdict.
        case malformedReceiptDataButDecodesLocally
        /// The server asked to wait (`Retry-After`) longer than the budget's `maxWait`: the receipt is
        /// left for the next run rather than holding its lane that long.
        case retryAfterBeyondLimit(requested: Duration, limit: Duration, last: TransientReason)
        /// The client was stopped (the run got SIGTERM or SIGINT) before Apple gave an answer worth
        /// keeping; `last` is the failure it would have retried, nil when nothing was sent.
        case stopped(last: TransientReason?)

        public var description: String {
            switch self {
            case .appleInternalErrorNotRetryable(let status): "status \(status), marked not retryable"
            case .unknownStatus(let code): "status \(VerifyReceiptStatus(rawValue: code))"
            case .hopLimitReached(let status): "status \(status) after the one allowed re-route"
            case .retriesExhausted(let reason): "attempts exhausted, last: \(reason)"
            case .httpStatus(let code): "unexpected HTTP \(code)"
            case .malformedReceiptDataButDecodesLocally:
                "status \(VerifyReceiptStatus.malformedReceiptData) persisted but the receipt decodes locally"
            case .retryAfterBeyondLimit(let requested, let limit, let last):
                "\(last): Apple asked to wait \(Self.seconds(requested)), more than the \(Self.seconds(limit)) cap "
                    + "(--max-retry-wait)"
            case .stopped(let last):
                last.map { "stopped before retrying, last: \($0)" } ?? "stopped before asking Apple"
            }
        }

        /// `300 s`, `1.5 s`: whole seconds when exact, else to the millisecond (rounded up).
        static func seconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            guard attoseconds > 0 else { return "\(seconds) s" }
            let milliseconds = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            guard milliseconds < 1000 else { return "\(seconds + 1) s" }
            var fraction = String(milliseconds + 1000).dropFirst()
            while fraction.hasSuffix("0") { fraction = fraction.dropLast() }
            return "\(seconds).\(fraction) s"
        }
    }
}
