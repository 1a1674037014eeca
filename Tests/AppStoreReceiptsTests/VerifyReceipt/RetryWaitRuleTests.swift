import AppStoreReceipts
import Foundation
import Testing

/// The wait cap (`--max-retry-wait`): a `Retry-After` within it is waited out, one beyond it ends the
/// receipt `unverified` for this run at once, with a reason an operator can act on.
@Suite struct RetryWaitRuleTests {
    /// Tue, 14 Nov 2023 22:13:20 GMT.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let budget = VerifyReceiptRetryBudget(maxAttempts: 4, maxWait: .seconds(300))

    static func verdict(
        status: Int = 429, retryAfter: String?, body: String = "", attempt number: Int = 1,
        budget: VerifyReceiptRetryBudget = budget
    ) -> VerificationVerdict {
        let attempt = VerifyReceiptAttempt(
            endpoint: .production, number: number, earlierMalformedReceiptAnswers: 0, hasRerouted: false,
            budget: budget)
        return VerifyReceiptClassifier.verdict(
            for: .httpResponse(statusCode: status, retryAfter: retryAfter, bodyData: Data(body.utf8)),
            attempt: attempt, now: now)
    }

    @Test(
        "a Retry-After up to the cap is waited out",
        arguments: [
            ("60", Duration.seconds(60)),
            ("300", .seconds(300)),
            ("Tue, 14 Nov 2023 22:18:20 GMT", .seconds(300)),
            ("Tue, 14 Nov 2023 22:13:00 GMT", .zero),
        ])
    func withinTheCap(_ header: String, _ wait: Duration) {
        #expect(Self.verdict(retryAfter: header) == .transient(.httpStatus(429), retryAfter: wait))
    }

    @Test(
        "a Retry-After beyond the cap ends the receipt unverified without waiting",
        arguments: [
            ("301", Duration.seconds(301)),
            ("99999999", .seconds(99_999_999)),
            ("Tue, 14 Nov 2023 23:13:20 GMT", .seconds(3600)),
        ])
    func beyondTheCap(_ header: String, _ requested: Duration) {
        #expect(
            Self.verdict(retryAfter: header)
                == .unverified(
                    .retryAfterBeyondLimit(requested: requested, limit: .seconds(300), last: .httpStatus(429))))
    }

    @Test func theReasonNamesTheWaitTheCapAndTheSetting() {
        let verdict = Self.verdict(retryAfter: "99999999")
        #expect(
            "\(verdict)"
                == "unverified: HTTP 429: Apple asked to wait 99999999 s, more than the 300 s cap (--max-retry-wait)")
        let fractional = Self.verdict(
            status: 503, retryAfter: "2.5", budget: VerifyReceiptRetryBudget(maxWait: .milliseconds(1500)))
        #expect(
            "\(fractional)".hasSuffix("HTTP 503: Apple asked to wait 2.5 s, more than the 1.5 s cap (--max-retry-wait)")
        )
    }

    @Test func withoutRetryAfterTheClientsOwnBackoffApplies() {
        #expect(Self.verdict(status: 503, retryAfter: nil) == .transient(.httpStatus(503), retryAfter: nil))
        #expect(Self.verdict(status: 503, retryAfter: "soon") == .transient(.httpStatus(503), retryAfter: nil))
    }

    @Test func onTheLastAttemptNothingWaitsAndTheAttemptsAreWhatRanOut() {
        #expect(Self.verdict(retryAfter: "99999999", attempt: 4) == .unverified(.retriesExhausted(.httpStatus(429))))
    }

    @Test func aRetriedAppleStatusWithALongRetryAfterIsCappedToo() {
        let malformed = Self.verdict(status: 200, retryAfter: "3600", body: #"{"status":21002}"#)
        #expect(
            malformed
                == .unverified(
                    .retryAfterBeyondLimit(
                        requested: .seconds(3600), limit: .seconds(300), last: .appleStatus(.malformedReceiptData))))
        let busy = Self.verdict(status: 200, retryAfter: "3600", body: #"{"status":21005}"#)
        guard case .unverified(.retryAfterBeyondLimit) = busy else {
            Issue.record("21005 with Retry-After 3600: \(busy)")
            return
        }
    }

    @Test func aZeroCapRetriesOnlyWhatNeedsNoWait() {
        let budget = VerifyReceiptRetryBudget(maxWait: .zero)
        #expect(Self.verdict(retryAfter: "0", budget: budget) == .transient(.httpStatus(429), retryAfter: .zero))
        #expect(Self.verdict(retryAfter: "1", budget: budget).isFinal)
    }

    @Test func theDefaultCapIsFiveMinutes() {
        #expect(VerifyReceiptRetryBudget().maxWait == .seconds(300))
        #expect(VerifyReceiptRetryBudget(maxWait: .seconds(-5)).maxWait == .zero)
    }

    @Test func aStoppedVerificationSaysSo() {
        #expect("\(VerificationVerdict.unverified(.stopped(last: nil)))" == "unverified: stopped before asking Apple")
        #expect(
            "\(VerificationVerdict.unverified(.stopped(last: .httpStatus(429))))"
                == "unverified: stopped before retrying, last: HTTP 429")
    }
}
