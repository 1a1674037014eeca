import Foundation

/// What one HTTP exchange with the App Store Server API means for the request (research/server-api.md
/// §4): the body, a reason to ask the other environment, to retry, to refresh the token, or to stop.
/// Pure: `classify` is the one place status codes and Apple's `errorCode`s are read.
enum ServerAPIAnswer: Equatable {
    case success(Data)
    /// 404 with 4040010 / 4040005: not in this environment; the other one may have it (one hop).
    case notInThisEnvironment(code: Int)
    /// 4040001 account, 4040003 app, 4040019 app transaction not found: Apple no longer finds what the
    /// id belonged to here (a deleted account). The other environment is asked too (one hop); if it
    /// has nothing either, the purchase is not proven absent, only gone from Apple's view.
    case gone(code: Int)
    /// 4000006 / 4000008: Apple refuses the id's format; no environment and no retry changes that.
    case invalidID(code: Int)
    /// 4000005 / 4000014 / 4000017: the page walk's `revision` is no longer good; walk again from the
    /// first page.
    case restartWalk(code: Int)
    /// Worth another attempt: the retryable codes, 5xx, 429 (`after`: its `Retry-After`), unknown codes,
    /// transport failures.
    case retry(RetryCause, after: Duration?)
    /// 5000000: "server error, try again later", but not one of the codes Apple names retryable. A
    /// customer whose lookups keep failing this way is usually broken at Apple for hours: asked again
    /// once (`boundedAttempts`), not `--max-attempts` times, so one such customer cannot hold a lane for
    /// seconds of backoff.
    case retryOnce(RetryCause)
    /// HTTP 401: the token (clock skew, expiry) or the key; refreshed once, then a configuration error.
    case unauthorized
    /// The configuration is wrong whatever is asked (4000002 invalid app identifier).
    case configuration(String)
    /// A request Apple refuses (400s): no retry, no verdict.
    case refused(String)

    /// Apple's own names for its retryable codes (and 5000000, whose page says "try again later").
    static let retryableCodes: Set<Int> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]
    static let boundedAttempts = 2
    static let otherEnvironmentCodes: Set<Int> = [4_040_010, 4_040_005]
    static let goneCodes: Set<Int> = [4_040_001, 4_040_003, 4_040_019]
    static let invalidIDCodes: Set<Int> = [4_000_006, 4_000_008]
    static let paginationCodes: Set<Int> = [4_000_005, 4_000_014, 4_000_017]

    static func classify(_ result: HTTPExchangeResult, now: Date) -> ServerAPIAnswer {
        let reply: HTTPReply
        switch result {
        case .failed(let failure): return .retry(.transport(failure), after: nil)
        case .response(let response): reply = response
        }
        let code = errorCode(reply.body)
        let named = code.map { "errorCode \($0)" } ?? "no errorCode"
        switch reply.statusCode {
        case 200..<300:
            return .success(reply.body)
        case 401:
            return .unauthorized
        case 429:
            let header = reply.header("retry-after") ?? ""
            let after = RetryAfter.parseUnixMilliseconds(header, now: now) ?? RetryAfter.parse(header, now: now)
            return .retry(.httpStatus(429, errorCode: code), after: after)
        default:
            break
        }
        if let code {
            if otherEnvironmentCodes.contains(code) { return .notInThisEnvironment(code: code) }
            if goneCodes.contains(code) { return .gone(code: code) }
            if invalidIDCodes.contains(code) { return .invalidID(code: code) }
            if paginationCodes.contains(code) { return .restartWalk(code: code) }
            if code == 4_000_002 {
                return .configuration(
                    "Apple says the app identifier is invalid (errorCode 4000002): check the bundle id")
            }
            if retryableCodes.contains(code) {
                return .retry(.httpStatus(reply.statusCode, errorCode: code), after: nil)
            }
            if code == 5_000_000 { return .retryOnce(.httpStatus(reply.statusCode, errorCode: code)) }
            // Known request errors are ours to fix; an unknown code is kept and treated as transient.
            if (4_000_000..<4_010_000).contains(code) {
                return .refused("HTTP \(reply.statusCode) (\(named): the request was refused)")
            }
        }
        return .retry(.httpStatus(reply.statusCode, errorCode: code), after: nil)
    }

    /// Why a request is worth another attempt; its description is what a result's detail says.
    enum RetryCause: Equatable, CustomStringConvertible {
        /// No answer came.
        case transport(VerifyReceiptTransportFailure)
        /// An HTTP status (429, 5xx, a retryable `errorCode`), with Apple's `errorCode` if the body names one.
        case httpStatus(Int, errorCode: Int?)

        var description: String {
            switch self {
            case .transport(let failure): "\(failure)"
            case .httpStatus(let status, let code):
                "HTTP \(status) (\(code.map { "errorCode \($0)" } ?? "no errorCode"))"
            }
        }
    }

    /// How the run's figures count an answer: its HTTP status, with Apple's `errorCode` when the body
    /// names one (`200`, `429`, `404/4040010`), or `transport` when no answer came.
    static func tallyKey(_ result: HTTPExchangeResult) -> String {
        guard case .response(let reply) = result else { return "transport" }
        guard !(200..<300).contains(reply.statusCode), let code = errorCode(reply.body) else {
            return String(reply.statusCode)
        }
        return "\(reply.statusCode)/\(code)"
    }

    /// `errorCode` of an error body, if it is one.
    static func errorCode(_ body: Data) -> Int? {
        guard !body.isEmpty, body.count < 4096, case .object(let object)? = try? AppleJSONParser.parse(body) else {
            return nil
        }
        return object.appleInt("errorCode")
    }
}
