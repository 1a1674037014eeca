import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

/// `--max-answer-bytes`: an answer past the limit is abandoned as it arrives, a transient failure, with
/// either transport and either framing; one within it is read as before.
@Suite struct AnswerSizeLimitTests {
    static let receipt = VerifyReceiptClientLoopbackTests.receipt
    static let framings: [HugeAnswerServer.Framing] = [.contentLength, .chunked]
    static let hangGuard: Duration = .seconds(600)

    @Test func theLimitAdmitsUpToItsSizeAndNoMore() {
        let limit = AnswerSizeLimit(bytes: 8 << 20)
        #expect(limit.admits(contentLength: 8 << 20))
        #expect(!limit.admits(contentLength: (8 << 20) + 1))
        #expect(limit.admits(contentLength: -1), "an unknown length (chunked) is counted as it comes")
        #expect(limit.admits(1 << 20, after: 7 << 20))
        #expect(!limit.admits(1, after: 8 << 20))
        #expect(AnswerSizeLimit.standard.bytes == 8 << 20)
        #expect(AnswerSizeLimit(bytes: 0).bytes == 1)
    }

    @Test(
        "the failure names the limit and the setting",
        arguments: [
            (8 << 20, "answer larger than 8 MiB (--max-answer-bytes)"),
            (512 << 10, "answer larger than 512 KiB (--max-answer-bytes)"),
            (1000, "answer larger than 1000 bytes (--max-answer-bytes)"),
        ])
    func failureText(_ bytes: Int, _ text: String) {
        #expect("\(AnswerSizeLimit(bytes: bytes).failure)" == text)
    }

    /// A client of `apple`. Its time-out is a hang guard only: every answer here ends at the limit, and
    /// a loaded machine (sixteen 256 MiB answers through URLSession beside a test suite) must not turn one
    /// into a time-out instead.
    static func client(
        _ apple: HugeAnswerServer, transport: HTTPTransportKind, limit: Int, concurrency: Int = 2,
        maxAttempts: Int = 2
    ) -> VerifyReceiptRig {
        let configuration = VerifyReceiptClient.Configuration(
            productionURL: apple.productionURL, sandboxURL: apple.sandboxURL, timeout: Self.hangGuard,
            budget: VerifyReceiptRetryBudget(maxAttempts: maxAttempts),
            backoff: BackoffPolicy(base: .milliseconds(10), cap: .milliseconds(20), seed: 3))
        return VerifyReceiptRig(
            client: VerifyReceiptClient(configuration: configuration),
            driver: ExchangeDriver(
                transport: transport.makeTransport(
                    maxConnectionsPerHost: concurrency, timeout: Self.hangGuard,
                    answerLimit: AnswerSizeLimit(bytes: limit)),
                rate: 1000, maxInFlight: concurrency))
    }

    @Test(arguments: HTTPTransportKind.allCases, framings)
    func anAnswerPastTheLimitIsAbandonedRetriedThenUnverified(
        _ transport: HTTPTransportKind, _ framing: HugeAnswerServer.Framing
    ) throws {
        let apple = try HugeAnswerServer(size: 256 << 20, framings: [framing])
        let report = Self.client(apple, transport: transport, limit: 1 << 20).verify(receiptData: Self.receipt)
        #expect(report.verdict == .unverified(.retriesExhausted(.transport(.answerTooLarge(limit: 1 << 20)))))
        #expect(report.detail.contains("answer larger than 1 MiB (--max-answer-bytes)"), "\(report.detail)")
        #expect((report.requests, report.retries) == (2, 1))
        // libcurl hangs up at once: of 512 MiB offered, the server got rid of the limit plus what socket
        // buffers hold. URLSession's cancel lags and the body may keep arriving, dropped unread
        // (URLSessionExchanges); the built binary's peak memory is checked with it in AnswerBoundsTests.
        if transport == .curl {
            #expect(apple.bodyBytesSent < 2 * (32 << 20), "\(apple.bodyBytesSent) body bytes left the server")
        }
    }

    @Test(arguments: HTTPTransportKind.allCases, framings)
    func anAnswerOfExactlyTheLimitIsReadAndOneByteMoreIsNot(
        _ transport: HTTPTransportKind, _ framing: HugeAnswerServer.Framing
    ) throws {
        let apple = try HugeAnswerServer(size: 4096, framings: [framing])
        let whole = Self.client(apple, transport: transport, limit: 4096).verify(receiptData: Self.receipt)
        #expect(whole.verdict == .valid, "\(whole.detail)")
        let short = Self.client(apple, transport: transport, limit: 4095, maxAttempts: 1)
            .verify(receiptData: Self.receipt)
        #expect(short.verdict == .unverified(.retriesExhausted(.transport(.answerTooLarge(limit: 4095)))))
    }

    /// Sixteen requests in flight, each offered 256 MiB: every one ends abandoned, and what the client
    /// took in stays near sixteen times the limit, not sixteen times the answer.
    @Test(arguments: HTTPTransportKind.allCases)
    func sixteenHugeAnswersInFlightEachStopAtTheLimit(_ transport: HTTPTransportKind) throws {
        let apple = try HugeAnswerServer(size: 256 << 20)
        let client = Self.client(apple, transport: transport, limit: 8 << 20, concurrency: 16, maxAttempts: 1)
        let verdicts = Mutex<[VerificationVerdict]>([])
        let done = DispatchGroup()
        for index in 0..<16 {
            done.enter()
            client.start(receiptData: Self.receipt + String(repeating: "A", count: index * 4)) { report in
                verdicts.withLock { $0.append(report.verdict) }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 900) == .success, "not every verification ended")
        let expected = VerificationVerdict.unverified(.retriesExhausted(.transport(.answerTooLarge(limit: 8 << 20))))
        #expect(verdicts.withLock { $0 } == Array(repeating: expected, count: 16))
        #expect(apple.requests == 16)
        if transport == .curl {
            #expect(apple.bodyBytesSent < 16 * (40 << 20), "\(apple.bodyBytesSent) body bytes left the server")
        }
    }
}
