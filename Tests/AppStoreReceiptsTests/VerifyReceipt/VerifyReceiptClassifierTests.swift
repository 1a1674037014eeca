import AppStoreReceipts
import Foundation
import Testing

/// CONTRACT §5 routing and retry rules, one row per documented status and HTTP status.
@Suite struct VerifyReceiptClassifierTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    struct StatusCase: CustomTestStringConvertible, Sendable {
        var body: String
        var endpoint: AppStoreEnvironment = .production
        var expected: VerificationVerdict
        var testDescription: String { "\(endpoint) ← \(body)" }
    }

    static let statusCases: [StatusCase] = [
        StatusCase(body: #"{"status":0,"environment":"Production"}"#, expected: .valid),
        StatusCase(body: #"{"status":21000}"#, expected: .configurationError(.badRequest)),
        StatusCase(body: #"{"status":21001}"#, expected: .unverified(.unknownStatus(21_001))),
        StatusCase(
            body: #"{"status":21002}"#, expected: .transient(.appleStatus(.malformedReceiptData), retryAfter: nil)),
        StatusCase(body: #"{"status":21003}"#, expected: .invalid(.receiptNotAuthenticated)),
        StatusCase(
            body: #"{"status":21004,"environment":"Production"}"#, expected: .configurationError(.sharedSecretMismatch)),
        StatusCase(
            body: #"{"status":21005}"#, expected: .transient(.appleStatus(.receiptServerUnavailable), retryAfter: nil)),
        StatusCase(body: #"{"status":21006}"#, expected: .valid),
        StatusCase(body: #"{"status":21007}"#, expected: .reroute(to: .sandbox)),
        StatusCase(
            body: #"{"status":21007}"#, endpoint: .sandbox,
            expected: .unverified(.hopLimitReached(.sandboxReceiptSentToProduction))),
        StatusCase(body: #"{"status":21008}"#, endpoint: .sandbox, expected: .reroute(to: .production)),
        StatusCase(
            body: #"{"status":21008}"#, expected: .unverified(.hopLimitReached(.productionReceiptSentToSandbox))),
        StatusCase(
            body: #"{"status":21009}"#, expected: .transient(.appleStatus(.internalDataAccessError), retryAfter: nil)),
        // is_retryable on a non-211xx code changes nothing: 21010 is never retried.
        StatusCase(body: #"{"status":21010,"is_retryable":false}"#, expected: .invalid(.accountNotFound)),
        StatusCase(body: #"{"status":21010,"is_retryable":true}"#, expected: .invalid(.accountNotFound)),
        StatusCase(
            body: #"{"status":21100,"is_retryable":true}"#,
            expected: .transient(.appleStatus(.internalError(21_100)), retryAfter: nil)),
        StatusCase(
            body: #"{"status":21100,"is_retryable":false}"#,
            expected: .unverified(.appleInternalErrorNotRetryable(.internalError(21_100)))),
        StatusCase(
            body: #"{"status":21100}"#, expected: .transient(.appleStatus(.internalError(21_100)), retryAfter: nil)),
        StatusCase(
            body: #"{"status":21150,"is_retryable":"1"}"#,
            expected: .transient(.appleStatus(.internalError(21_150)), retryAfter: nil)),
        StatusCase(
            body: #"{"status":21150,"is_retryable":"0"}"#,
            expected: .unverified(.appleInternalErrorNotRetryable(.internalError(21_150)))),
        StatusCase(
            body: #"{"status":21150,"is_retryable":0}"#,
            expected: .unverified(.appleInternalErrorNotRetryable(.internalError(21_150)))),
        StatusCase(
            body: #"{"status":21150,"is_retryable":"false"}"#,
            expected: .unverified(.appleInternalErrorNotRetryable(.internalError(21_150)))),
        StatusCase(
            body: #"{"status":21199,"is-retryable":false}"#,
            expected: .unverified(.appleInternalErrorNotRetryable(.internalError(21_199)))),
        StatusCase(
            body: #"{"status":21199,"is-retryable":1}"#,
            expected: .transient(.appleStatus(.internalError(21_199)), retryAfter: nil)),
        StatusCase(
            body: #"{"status":21199}"#, expected: .transient(.appleStatus(.internalError(21_199)), retryAfter: nil)),
        StatusCase(body: #"{"status":2}"#, expected: .unverified(.unknownStatus(2))),
        StatusCase(body: #"{"status":21200}"#, expected: .unverified(.unknownStatus(21_200))),
        StatusCase(body: #"{"status":99999}"#, expected: .unverified(.unknownStatus(99_999))),
        StatusCase(body: #"{"status":-1}"#, expected: .unverified(.unknownStatus(-1))),
    ]

    @Test("each Apple status gets the verdict CONTRACT §5 gives it", arguments: statusCases)
    func appleStatus(_ row: StatusCase) {
        let exchange = VerifyReceiptExchange.httpResponse(statusCode: 200, bodyData: Data(row.body.utf8))
        let verdict = VerifyReceiptClassifier.verdict(
            for: exchange, attempt: VerifyReceiptAttempt(endpoint: row.endpoint), now: Self.now)
        #expect(verdict == row.expected)
    }

    @Test("every documented status has a rule in the table")
    func everyDocumentedStatusIsCovered() {
        let covered = Set(
            Self.statusCases.compactMap { row in
                try? verifyReceiptResponse(row.body).rawStatus
            })
        for status in VerifyReceiptStatus.documented {
            #expect(covered.contains(status.rawValue), "no row for \(status)")
        }
        #expect(covered.contains(21_150))
    }

    struct HTTPCase: CustomTestStringConvertible, Sendable {
        var statusCode: Int
        var retryAfter: String?
        var body: String = #"{"status":0}"#
        var expected: VerificationVerdict
        var testDescription: String { "HTTP \(statusCode) Retry-After \(retryAfter ?? "none")" }
    }

    static let httpCases: [HTTPCase] = [
        HTTPCase(statusCode: 200, expected: .valid),
        HTTPCase(statusCode: 400, body: "Bad Request", expected: .configurationError(.httpStatus(400))),
        HTTPCase(statusCode: 404, body: "<html>Not Found</html>", expected: .configurationError(.httpStatus(404))),
        HTTPCase(statusCode: 410, body: "", expected: .configurationError(.httpStatus(410))),
        HTTPCase(statusCode: 413, body: "", expected: .unverified(.httpStatus(413))),
        HTTPCase(statusCode: 302, body: "", expected: .unverified(.httpStatus(302))),
        HTTPCase(statusCode: 429, body: "", expected: .transient(.httpStatus(429), retryAfter: nil)),
        HTTPCase(
            statusCode: 429, retryAfter: "7", body: "", expected: .transient(.httpStatus(429), retryAfter: .seconds(7))),
        HTTPCase(
            statusCode: 429, retryAfter: "Tue, 14 Nov 2023 22:13:50 GMT", body: "",
            expected: .transient(.httpStatus(429), retryAfter: .seconds(30))),
        HTTPCase(
            statusCode: 429, retryAfter: "whenever", body: "", expected: .transient(.httpStatus(429), retryAfter: nil)),
        HTTPCase(statusCode: 500, body: "<html>oops</html>", expected: .transient(.httpStatus(500), retryAfter: nil)),
        // An error status wins over a JSON body that claims success.
        HTTPCase(statusCode: 500, expected: .transient(.httpStatus(500), retryAfter: nil)),
        HTTPCase(statusCode: 502, body: "", expected: .transient(.httpStatus(502), retryAfter: nil)),
        HTTPCase(
            statusCode: 503, retryAfter: "120", body: "",
            expected: .transient(.httpStatus(503), retryAfter: .seconds(120))),
        HTTPCase(statusCode: 504, body: "", expected: .transient(.httpStatus(504), retryAfter: nil)),
        HTTPCase(
            statusCode: 200, body: "<html><head><title>Maintenance</title></head></html>",
            expected: .transient(
                .undecodableBody(.notJSON(prefix: "<html><head><title>Maintenance</title></")), retryAfter: nil)),
        HTTPCase(
            statusCode: 200, body: #"{"status":0,"receipt":{"in_a"#,
            expected: .transient(.undecodableBody(.malformedJSON(byteCount: 28)), retryAfter: nil)),
        HTTPCase(statusCode: 204, body: "", expected: .transient(.undecodableBody(.emptyBody), retryAfter: nil)),
    ]

    @Test("each HTTP status gets its verdict", arguments: httpCases)
    func httpStatus(_ row: HTTPCase) {
        let exchange = VerifyReceiptExchange.httpResponse(
            statusCode: row.statusCode, retryAfter: row.retryAfter, bodyData: Data(row.body.utf8))
        let verdict = VerifyReceiptClassifier.verdict(
            for: exchange, attempt: VerifyReceiptAttempt(endpoint: .production), now: Self.now)
        #expect(verdict == row.expected)
    }

    @Test("a Retry-After date equal to now means retry at once")
    func retryAfterDateIsNow() {
        // 1_700_000_000 = Tue, 14 Nov 2023 22:13:20 GMT.
        #expect(RetryAfter.parse("Tue, 14 Nov 2023 22:13:20 GMT", now: Self.now) == .zero)
    }

    @Test(
        "transport failures are retried, then end unverified with the last failure kept",
        arguments: [VerifyReceiptTransportFailure.timedOut, .connectionFailed(detail: "ECONNRESET")])
    func transportFailure(_ failure: VerifyReceiptTransportFailure) {
        let budget = VerifyReceiptRetryBudget(maxAttempts: 3)
        let first = VerifyReceiptAttempt(endpoint: .production, budget: budget)
        let last = VerifyReceiptAttempt(
            endpoint: .production, number: 3, earlierMalformedReceiptAnswers: 0, hasRerouted: false, budget: budget)
        #expect(
            VerifyReceiptClassifier.verdict(for: .transportFailed(failure), attempt: first, now: Self.now)
                == .transient(.transport(failure), retryAfter: nil))
        #expect(
            VerifyReceiptClassifier.verdict(for: .transportFailed(failure), attempt: last, now: Self.now)
                == .unverified(.retriesExhausted(.transport(failure))))
    }

    /// Drives the classifier the way the client does, over scripted answers.
    static func run(
        _ answers: [VerifyReceiptExchange],
        startingAt endpoint: AppStoreEnvironment = .production,
        budget: VerifyReceiptRetryBudget = VerifyReceiptRetryBudget()
    ) -> (verdict: VerificationVerdict, endpoints: [AppStoreEnvironment]) {
        var attempt = VerifyReceiptAttempt(endpoint: endpoint, budget: budget)
        var endpoints: [AppStoreEnvironment] = []
        for answer in answers {
            endpoints.append(attempt.endpoint)
            let verdict = VerifyReceiptClassifier.verdict(for: answer, attempt: attempt, now: now)
            guard let next = attempt.next(after: verdict) else { return (verdict, endpoints) }
            attempt = next
        }
        Issue.record("script ran out of answers at \(attempt)")
        return (.unverified(.unknownStatus(-999)), endpoints)
    }

    static func apple(_ json: String) -> VerifyReceiptExchange {
        .httpResponse(statusCode: 200, bodyData: Data(json.utf8))
    }

    @Test("a sandbox receipt in production is re-routed once, and retries there get a fresh budget")
    func rerouteThenRetry() {
        let outcome = Self.run(
            [
                Self.apple(#"{"status":21005}"#),
                Self.apple(#"{"status":21007}"#),
                .httpResponse(statusCode: 503, retryAfter: "1", bodyData: Data()),
                .transportFailed(.timedOut),
                .httpResponse(statusCode: 503, retryAfter: nil, bodyData: Data()),
                Self.apple(#"{"status":0,"environment":"Sandbox"}"#),
            ],
            budget: VerifyReceiptRetryBudget(maxAttempts: 4))
        #expect(outcome.verdict == .valid)
        #expect(outcome.endpoints == [.production, .production, .sandbox, .sandbox, .sandbox, .sandbox])
    }

    @Test("never a second hop: 21008 after a 21007 hop ends unverified instead of looping")
    func oneHopOnly() {
        let outcome = Self.run([Self.apple(#"{"status":21007}"#), Self.apple(#"{"status":21008}"#)])
        #expect(outcome.verdict == .unverified(.hopLimitReached(.productionReceiptSentToSandbox)))
        #expect(outcome.endpoints == [.production, .sandbox])
    }

    @Test("a database serving sandbox starts there and hops to production on 21008")
    func sandboxFirst() {
        let outcome = Self.run(
            [Self.apple(#"{"status":21008}"#), Self.apple(#"{"status":0}"#)], startingAt: .sandbox)
        #expect(outcome.verdict == .valid)
        #expect(outcome.endpoints == [.sandbox, .production])
    }

    @Test("retryable failures stop after --max-attempts on the endpoint")
    func attemptsExhausted() {
        let answers = Array(repeating: Self.apple(#"{"status":21009}"#), count: 10)
        let outcome = Self.run(answers, budget: VerifyReceiptRetryBudget(maxAttempts: 4))
        #expect(outcome.verdict == .unverified(.retriesExhausted(.appleStatus(.internalDataAccessError))))
        #expect(outcome.endpoints.count == 4)
    }

    @Test("--max-attempts 1 means no retry at all")
    func singleAttempt() {
        let outcome = Self.run(
            [.httpResponse(statusCode: 429, retryAfter: "1", bodyData: Data())],
            budget: VerifyReceiptRetryBudget(maxAttempts: 1))
        #expect(outcome.verdict == .unverified(.retriesExhausted(.httpStatus(429))))
    }

    @Test("21002 is retried within its own smaller budget, then persists", arguments: [1, 2, 3])
    func malformedReceiptBudget(limit: Int) {
        let answers = Array(repeating: Self.apple(#"{"status":21002}"#), count: 10)
        let outcome = Self.run(
            answers, budget: VerifyReceiptRetryBudget(maxAttempts: 4, maxMalformedReceiptAttempts: limit))
        #expect(outcome.verdict == .persistentMalformedReceiptData)
        #expect(outcome.endpoints.count == limit)
    }

    @Test("21002 answers count across other failures in between")
    func malformedReceiptAnswersAccumulate() {
        let outcome = Self.run(
            [Self.apple(#"{"status":21002}"#), .transportFailed(.timedOut), Self.apple(#"{"status":21002}"#)],
            budget: VerifyReceiptRetryBudget(maxAttempts: 4, maxMalformedReceiptAttempts: 2))
        #expect(outcome.verdict == .persistentMalformedReceiptData)
        #expect(outcome.endpoints.count == 3)
    }

    @Test("21002 that recovers gives the real answer")
    func malformedReceiptRecovers() {
        let outcome = Self.run([Self.apple(#"{"status":21002}"#), Self.apple(#"{"status":0}"#)])
        #expect(outcome.verdict == .valid)
    }

    @Test("a persistent 21002 is invalid only when local decoding fails too")
    func persistentMalformedReceipt() {
        #expect(
            VerifyReceiptClassifier.persistentMalformedReceiptRule(localDecodingSucceeded: false)
                == .invalid(.malformedReceiptData))
        #expect(
            VerifyReceiptClassifier.persistentMalformedReceiptRule(localDecodingSucceeded: true)
                == .unverified(.malformedReceiptDataButDecodesLocally))
    }

    @Test("21004 and 21000 stop at the first answer, without retry")
    func configurationErrorsAreNotRetried() {
        #expect(Self.run([Self.apple(#"{"status":21004}"#)]).verdict == .configurationError(.sharedSecretMismatch))
        #expect(Self.run([Self.apple(#"{"status":21000}"#)]).verdict == .configurationError(.badRequest))
    }

    @Test("only reroute and transient let the client continue")
    func finality() {
        let attempt = VerifyReceiptAttempt(endpoint: .production)
        #expect(attempt.next(after: .valid) == nil)
        #expect(attempt.next(after: .persistentMalformedReceiptData) == nil)
        #expect(attempt.next(after: .unverified(.unknownStatus(2))) == nil)
        #expect(VerificationVerdict.valid.isFinal)
        #expect(!VerificationVerdict.reroute(to: .sandbox).isFinal)
        #expect(!VerificationVerdict.transient(.httpStatus(503), retryAfter: nil).isFinal)
        let rerouted = attempt.next(after: .reroute(to: .sandbox))
        #expect(
            rerouted
                == VerifyReceiptAttempt(
                    endpoint: .sandbox, number: 1, earlierMalformedReceiptAnswers: 0, hasRerouted: true,
                    budget: VerifyReceiptRetryBudget()))
    }

    @Test(
        "verdicts read as one line fit for recon_results.detail",
        arguments: [
            (
                VerificationVerdict.unverified(.retriesExhausted(.httpStatus(503))),
                "unverified: attempts exhausted, last: HTTP 503"
            ),
            (.invalid(.receiptNotAuthenticated), "invalid: status 21003 (receipt could not be authenticated)"),
            (
                .configurationError(.sharedSecretMismatch),
                "configuration error: status 21004 (shared secret does not match the account's)"
            ),
            (.transient(.httpStatus(429), retryAfter: .seconds(2)), "transient: HTTP 429 (retry after 2.0 seconds)"),
            (.unverified(.unknownStatus(2)), "unverified: status 2 (status not documented by Apple)"),
            (
                .unverified(.appleInternalErrorNotRetryable(.internalError(21_150))),
                "unverified: status 21150 (internal data access error at Apple (21100-21199)), marked not retryable"
            ),
            (.reroute(to: .sandbox), "reroute to sandbox"),
        ])
    func verdictDescription(_ verdict: VerificationVerdict, _ expected: String) {
        #expect(verdict.description == expected)
    }
}
