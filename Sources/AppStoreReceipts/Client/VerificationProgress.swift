import Foundation

/// One verification between its requests: what was learnt so far and what to do next, by CONTRACT §5.
/// Only bookkeeping: the drivers (`VerifyReceiptClient.verify`, which blocks, and `start`, which calls
/// back) do the sending and the waiting, so both follow exactly the same rules.
struct VerificationProgress {
    enum Next {
        /// Send the next attempt (`attempt`, already advanced) once `after` has passed.
        case send(after: Duration)
        /// The verification is over.
        case finished(VerificationReport)
    }

    /// The request body, the same for every attempt.
    let body: Data
    private(set) var attempt: VerifyReceiptAttempt
    private var report = VerificationReport()
    /// The last failure a retry was planned for, and its detail: what a stop reports.
    private var lastFailure: (reason: VerificationVerdict.TransientReason, detail: String)?

    /// The progress before the first request, or the finished report when no request can be built.
    static func begin(receiptData: String, configuration: VerifyReceiptClient.Configuration)
        -> Result<VerificationProgress, FinishedEarly>
    {
        do {
            let body = try VerifyReceiptRequest(receiptData: receiptData, password: configuration.sharedSecret)
                .jsonBody()
            return .success(
                VerificationProgress(
                    body: body,
                    attempt: VerifyReceiptAttempt(endpoint: configuration.environment, budget: configuration.budget)))
        } catch {
            var report = VerificationReport()
            report.finish(
                .unverified(.retriesExhausted(.transport(.connectionFailed(detail: "request could not be encoded")))),
                detail: "request could not be encoded")
            return .failure(FinishedEarly(report: report))
        }
    }

    /// A verification that ended before its first request.
    struct FinishedEarly: Error {
        let report: VerificationReport
    }

    /// The report of a verification the client stopped (SIGTERM, SIGINT) before its next request:
    /// `unverified`, with the failure it was about to retry, if any.
    func stopped() -> VerificationReport {
        var report = report
        let verdict = VerificationVerdict.unverified(.stopped(last: lastFailure?.reason))
        report.finish(verdict, detail: lastFailure.map { "\(verdict) (\($0.detail))" } ?? "\(verdict)")
        return report
    }

    /// Records the outcome of the request sent for `attempt`, which took `latency` (the throttle's wait
    /// excluded), and says what comes next. A retry waits the backoff or the server's `Retry-After`,
    /// never more than the budget's `maxWait`.
    /// - Parameter shouldStop: asked before a retry; true ends the verification `unverified` instead.
    mutating func record(
        _ result: HTTPExchangeResult, latency: Duration, configuration: VerifyReceiptClient.Configuration,
        now: Date, shouldStop: () -> Bool
    ) -> Next {
        report.requests += 1
        report.latencies.append(latency)
        report.answeredBy = attempt.endpoint

        let exchange: VerifyReceiptExchange
        var detail: String
        switch result {
        case .failed(let failure):
            exchange = .transportFailed(failure)
            detail = "\(attempt.endpoint): \(failure)"
        case .response(let reply):
            exchange = .httpResponse(
                statusCode: reply.statusCode, retryAfter: reply.header("retry-after"),
                bodyData: reply.body, keepingLatestReceipt: configuration.keepsLatestReceipt)
            if reply.statusCode == 429 { report.throttled += 1 }
            if let response = exchange.response, (200..<300).contains(reply.statusCode) {
                report.response = response
                report.appleStatus = response.rawStatus
                detail = "\(attempt.endpoint): status \(response.rawStatus)"
            } else {
                detail = "\(attempt.endpoint): \(reply.summary)"
            }
        }

        let verdict = VerifyReceiptClassifier.verdict(for: exchange, attempt: attempt, now: now)
        guard let next = attempt.next(after: verdict) else {
            report.finish(verdict, detail: "\(verdict) (\(detail))")
            return .finished(report)
        }
        var backoff = Duration.zero
        if case .transient(let reason, let retryAfter) = verdict {
            lastFailure = (reason, detail)
            if shouldStop() { return .finished(stopped()) }
            report.retries += 1
            backoff = configuration.backoff.delay(
                afterAttempt: attempt.number, retryAfter: retryAfter, limit: configuration.budget.maxWait)
        } else {
            report.hops += 1
        }
        attempt = next
        return .send(after: backoff)
    }
}
