import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

/// `ExchangeDriver.stop` (SIGTERM, SIGINT) ends every wait at once: a `Retry-After`, a backoff, a
/// throttle token; and the wait cap ends a receipt whose server asks for too long without waiting.
@Suite struct ClientStopTests {
    static let receipt = VerifyReceiptClientLoopbackTests.receipt
    static let tooManyRequests = ScriptedAppleServer.Answer.http(429, body: "", headers: [("Retry-After", "60")])

    /// Starts `receipt` and returns a way to wait for its report.
    static func start(_ client: VerifyReceiptRig, receipt: String = receipt) -> (
        @Sendable (TimeInterval) -> VerificationReport?
    ) {
        let report = Mutex<VerificationReport?>(nil)
        let done = DispatchSemaphore(value: 0)
        client.start(receiptData: receipt) { answer in
            report.withLock { $0 = answer }
            done.signal()
        }
        return { seconds in
            guard done.wait(timeout: .now() + seconds) == .success else { return nil }
            return report.withLock { $0 }
        }
    }

    static func waitFor(_ condition: () -> Bool, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func stopEndsARetryAfterWaitAtOnce(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [Self.tooManyRequests])
        let client = apple.client(transport: transport)
        let report = Self.start(client)
        #expect(Self.waitFor { apple.received.count == 1 })
        Thread.sleep(forTimeInterval: 0.2)  // the answer is in and the 60 s wait has begun
        client.stop()
        // The verdict is the proof: a wait the stop did not end would retry after 60 s and end otherwise.
        let got = try #require(report(30), "the verification still waits after stop")
        #expect(got.verdict == .unverified(.stopped(last: .httpStatus(429))))
        #expect(got.detail.hasPrefix("unverified: stopped before retrying, last: HTTP 429"), "\(got.detail)")
        #expect(apple.received.count == 1)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func stopWakesABlockingVerifyToo(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [Self.tooManyRequests])
        let client = apple.client(transport: transport)
        let report = Mutex<VerifiedReceipt?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let answer = client.verify(receiptData: Self.receipt)
            report.withLock { $0 = answer }
            done.signal()
        }
        #expect(Self.waitFor { apple.received.count == 1 })
        Thread.sleep(forTimeInterval: 0.2)
        client.stop()
        #expect(done.wait(timeout: .now() + 10) == .success, "verify still sleeps after stop")
        #expect(report.withLock { $0?.verdict } == .unverified(.stopped(last: .httpStatus(429))))
        #expect(apple.received.count == 1)
    }

    @Test func aVerificationStartedAfterStopSendsNothing() throws {
        let apple = try ScriptedAppleServer(production: [.status(0)])
        let client = apple.client()
        client.stop()
        let got = try #require(Self.start(client)(10))
        #expect(got.verdict == .unverified(.stopped(last: nil)))
        #expect(got.requests == 0)
        #expect(client.verify(receiptData: Self.receipt).verdict == .unverified(.stopped(last: nil)))
        #expect(apple.received.isEmpty)
    }

    /// At 0.1 requests a second the second and third requests wait 10 and 20 s for their tokens; a stop
    /// ends both waits, and neither request is sent.
    @Test(arguments: HTTPTransportKind.allCases)
    func stopEndsThrottleWaits(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [.status(0)])
        let client = apple.client(transport: transport, concurrency: 3, rate: 0.1)
        let reports = (0..<3).map { Self.start(client, receipt: Self.receipt + String(repeating: "A", count: $0 * 4)) }
        #expect(Self.waitFor { apple.received.count == 1 })
        Thread.sleep(forTimeInterval: 0.3)
        client.stop()
        let ended = reports.map { $0(10) }
        #expect(ended.allSatisfy { $0 != nil }, "a throttle wait outlived the stop")
        #expect(ended.compactMap { $0?.verdict }.filter { $0 == .valid }.count == 1)
        #expect(
            ended.compactMap { $0?.verdict }.filter { if case .unverified(.stopped) = $0 { true } else { false } }.count
                == 2)
        #expect(apple.received.count == 1)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func aRetryAfterBeyondTheCapEndsTheReceiptWithoutWaiting(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [
            .http(429, body: "", headers: [("Retry-After", "99999999")])
        ])
        // Waiting would take three years: the verdict and the one request say it ended without a wait.
        let report = apple.client(transport: transport).verify(receiptData: Self.receipt)
        #expect(
            report.verdict
                == .unverified(
                    .retryAfterBeyondLimit(
                        requested: .seconds(99_999_999), limit: .seconds(300), last: .httpStatus(429))))
        #expect(report.detail.contains("Apple asked to wait 99999999 s, more than the 300 s cap (--max-retry-wait)"))
        #expect(apple.received.count == 1)
    }
}
