import Foundation

/// One request handed to the curl loop thread: only values, so it crosses threads freely.
struct CurlRequest: Sendable {
    let method: HTTPMethod
    let url: String
    let body: Data
    let headers: [String: String]
    /// libcurl treats 0 as "no timeout", so this is at least 1.
    let timeoutMilliseconds: Int
    /// When the loop may start it: the throttle's token is due then.
    let start: ContinuousClock.Instant
    /// Whether the lane had to wait for that token: the rate, not the number of lanes, paced it.
    let waitedForToken: Bool
    /// The transport's `--max-answer-bytes`.
    let answerLimit: AnswerSizeLimit
    let completion: CurlCompletion

    init(
        _ request: HTTPClientRequest, start: ContinuousClock.Instant, waitedForToken: Bool,
        answerLimit: AnswerSizeLimit,
        completion: CurlCompletion
    ) {
        method = request.method
        url = request.url.absoluteString
        body = request.body
        headers = request.headers
        // Rounded up (libcurl counts whole milliseconds) and capped at a year, far from overflow.
        let components = request.timeout.components
        timeoutMilliseconds = max(
            1,
            Int(
                min(components.seconds, 365 * 86_400) * 1000
                    + (components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
        self.start = start
        self.waitedForToken = waitedForToken
        self.answerLimit = answerLimit
        self.completion = completion
    }
}
