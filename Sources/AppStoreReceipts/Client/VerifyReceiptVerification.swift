import Foundation

/// One receipt's verification with verifyReceipt, as an exchange (CONTRACT §5): the configured
/// environment's endpoint first, one hop on 21007/21008, retries within the attempt budget
/// (`VerifyReceiptClassifier` rules on each answer, `RetryRule` times the retry), and a report of
/// everything that happened.
public struct VerifyReceiptVerification: AppleExchange {
    private let client: VerifyReceiptClient
    /// The request body, the same for every attempt; nil when it could not be built.
    private let body: Data?
    public private(set) var attempt: VerifyReceiptAttempt
    private var report = VerificationReport()
    /// The last failure a retry was planned for, and its detail: what a stop reports.
    private var lastFailure: (reason: VerificationVerdict.TransientReason, detail: String)?

    init(receiptData: String, client: VerifyReceiptClient) {
        self.client = client
        body = try? VerifyReceiptRequest(receiptData: receiptData, password: client.configuration.sharedSecret)
            .jsonBody()
        attempt = VerifyReceiptAttempt(endpoint: client.configuration.environment, budget: client.retry.budget)
    }

    public mutating func start() -> ExchangeStep<VerificationReport> {
        guard body != nil else {
            let detail = "request could not be encoded"
            report.finish(.unverified(.retriesExhausted(.transport(.connectionFailed(detail: detail)))), detail: detail)
            return .finish(report)
        }
        return .send(request(.ask), after: .zero)
    }

    public mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<VerificationReport> {
        switch event {
        case .stop: return .finish(stopped())
        case .answer(let answer): return record(answer)
        }
    }

    private func request(_ purpose: RequestPurpose) -> AppleRequest {
        AppleRequest(
            HTTPClientRequest(
                method: .post, url: client.configuration.url(for: attempt.endpoint), body: body ?? Data(),
                headers: client.requestHeaders, timeout: client.configuration.timeout),
            endpoint: .verifyReceipt, environment: attempt.endpoint, purpose: purpose)
    }

    /// The report of a verification the run stopped before its next request: `unverified`, with the
    /// failure it was about to retry, if any.
    private func stopped() -> VerificationReport {
        var report = report
        let verdict = VerificationVerdict.unverified(.stopped(last: lastFailure?.reason))
        report.finish(verdict, detail: lastFailure.map { "\(verdict) (\($0.detail))" } ?? "\(verdict)")
        return report
    }

    /// Records the answer to the request sent for `attempt` and says what comes next. A retry waits
    /// the backoff or the server's `Retry-After`, never more than the budget's `maxWait`.
    private mutating func record(_ answer: ExchangeAnswer) -> ExchangeStep<VerificationReport> {
        report.requests += 1
        report.answeredBy = attempt.endpoint

        let exchange: VerifyReceiptExchange
        var detail: String
        switch answer.result {
        case .failed(let failure):
            exchange = .transportFailed(failure)
            detail = "\(attempt.endpoint): \(failure)"
        case .response(let reply):
            exchange = .httpResponse(
                statusCode: reply.statusCode, retryAfter: reply.header("retry-after"),
                bodyData: reply.body, keepingLatestReceipt: client.configuration.keepsLatestReceipt)
            if let response = exchange.response, (200..<300).contains(reply.statusCode) {
                report.response = response
                report.appleStatus = response.rawStatus
                detail = "\(attempt.endpoint): status \(response.rawStatus)"
            } else {
                detail = "\(attempt.endpoint): \(reply.summary)"
            }
        }

        let verdict = VerifyReceiptClassifier.verdict(for: exchange, attempt: attempt, now: answer.now)
        guard let next = attempt.next(after: verdict) else {
            report.finish(verdict, detail: "\(verdict) (\(detail))")
            return .finish(report)
        }
        guard case .transient(let reason, let retryAfter) = verdict else {
            attempt = next
            return .send(request(.hop), after: .zero)
        }
        lastFailure = (reason, detail)
        // The classifier already ruled out a spent budget and a `Retry-After` beyond it.
        let backoff = client.retry.delay(afterAttempt: attempt.number, retryAfter: retryAfter)
        attempt = next
        return .send(request(.retry), after: backoff)
    }
}
