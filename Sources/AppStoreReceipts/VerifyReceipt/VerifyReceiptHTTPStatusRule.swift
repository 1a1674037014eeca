/// What an HTTP status means for a verifyReceipt exchange, before the body is looked at.
///
/// Apple answers 200 even for errors and puts the outcome in the JSON `status`; other HTTP
/// statuses come from outages, overload, proxies and misconfiguration.
public enum VerifyReceiptHTTPStatusRule: Hashable, Sendable {
    /// 2xx: the JSON `status` decides.
    case readBody
    /// 408 Request Timeout, 425 Too Early, 429 Too Many Requests and every 5xx: retry, honouring
    /// `Retry-After`.
    case retry
    /// 400, 401, 403, 404, 405, 407, 410, 415: the endpoint URL, a proxy or the request format
    /// is wrong (or the endpoint was retired, 410), so every receipt would fail alike. Apple
    /// itself reports bad requests as 200 + 21000, so these do not come from a healthy
    /// verifyReceipt: stopping the run with exit 78 beats spending a night's budget on them.
    case configurationError
    /// Anything else (other 4xx such as 413, and 1xx / 3xx, which URLSession should have
    /// handled): this receipt gets no verdict, the run goes on, and the unverified-ratio
    /// breaker catches a systematic cause.
    case unverified

    /// The rule for an HTTP status code.
    public init(statusCode: Int) {
        switch statusCode {
        case 200...299: self = .readBody
        case 408, 425, 429, 500...599: self = .retry
        case 400, 401, 403, 404, 405, 407, 410, 415: self = .configurationError
        default: self = .unverified
        }
    }
}
