import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

/// The exchange driver as the run uses it, on a virtual clock with a scripted transport: waits,
/// stops, limits and traffic figures for every kind of exchange, in no real time.
@Suite struct ExchangeDriverTests {
    /// A driver on a virtual clock whose answers run on the advancing thread, so each test steps
    /// through time and sees exactly what was sent when.
    final class Rig: Sendable {
        let clock = VirtualClock()
        let transport: ScriptedTransport
        let driver: ExchangeDriver
        let draining = Atomic(false)

        init(
            rate: Double = 1000, sandboxRate: Double? = nil, burst: Double? = nil, maxInFlight: Int = 8,
            script: @escaping @Sendable (HTTPClientRequest, Int) -> ScriptedTransport.Reply
        ) {
            transport = ScriptedTransport(clock: clock, script: script)
            driver = ExchangeDriver(
                transport: transport, rate: rate, sandboxRate: sandboxRate, burst: burst, maxInFlight: maxInFlight,
                clock: clock)
        }

        /// Starts `exchange`; its result and traffic land in the returned box once it finishes.
        func start<Exchange: AppleExchange>(_ exchange: Exchange) -> Outcome<Exchange.Result> {
            let outcome = Outcome<Exchange.Result>()
            let context = ExchangeContext(
                executor: WorkExecutor { $0() }, isDraining: { [self] in draining.load(ordering: .relaxed) },
                recordTraffic: { traffic in outcome.traffic.withLock { $0.add(traffic) } })
            driver.run(exchange, context: context) { result in outcome.result.withLock { $0 = result } }
            return outcome
        }
    }

    final class Outcome<Result: Sendable>: Sendable {
        let result = Mutex<Result?>(nil)
        let traffic = Mutex(AppleTraffic())
        var value: Result? { result.withLock { $0 } }
        var recorded: AppleTraffic { traffic.withLock { $0 } }
    }

    static let valid = #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example.app","in_app":[]}}"#

    static func verifyReceipt(maxAttempts: Int = 4, maxWait: Duration = .seconds(300)) -> VerifyReceiptClient {
        VerifyReceiptClient(
            configuration: VerifyReceiptClient.Configuration(
                productionURL: URL(string: "http://apple.invalid/production")!,
                sandboxURL: URL(string: "http://apple.invalid/sandbox")!,
                budget: VerifyReceiptRetryBudget(maxAttempts: maxAttempts, maxWait: maxWait),
                backoff: BackoffPolicy(base: .milliseconds(100), cap: .seconds(1), seed: 3)))
    }

    @Test func aRetryWaitsOutRetryAfterOnTheClock() {
        let rig = Rig { _, index in
            index == 0 ? .status(503, "busy", headers: ["Retry-After": "2"]) : .status(200, Self.valid)
        }
        let outcome = rig.start(Self.verifyReceipt().verification(of: "cmVjZWlwdA=="))
        rig.clock.advance(by: .milliseconds(2050))
        #expect(rig.transport.sent.count == 1, "the retry waits the 2 s Apple asked for, from its answer")
        rig.clock.advance(by: .milliseconds(100))
        #expect(rig.transport.sent.count == 2)
        rig.clock.advance(by: .milliseconds(100))
        #expect(outcome.value?.verdict == .valid)
        #expect(outcome.value?.requests == 2)
        let sent = rig.transport.sent
        #expect(sent[1].started - sent[0].started >= .milliseconds(2100))
        #expect(outcome.recorded.retries == 1)
        #expect(outcome.recorded.requests == 2)
        #expect(outcome.recorded.requestsByEndpoint == ["verify_receipt": 2])
        #expect(outcome.recorded.serverAPIAnswers.isEmpty)
    }

    @Test func aSignalEndsABackoffAtOnceAndSendsNothingMore() {
        let rig = Rig { _, _ in .status(503, "busy", headers: ["Retry-After": "60"]) }
        let outcome = rig.start(Self.verifyReceipt().verification(of: "cmVjZWlwdA=="))
        rig.clock.advance(by: .milliseconds(200))
        #expect(outcome.value == nil, "waiting out Apple's 60 s")
        rig.driver.stop()
        guard case .unverified(.stopped(let last))? = outcome.value?.verdict else {
            Issue.record("a stopped verification is unverified, stopped: \(String(describing: outcome.value?.verdict))")
            return
        }
        #expect(last != nil, "it says which failure it was about to retry")
        // Later exchanges end without a request.
        let later = rig.start(Self.verifyReceipt().verification(of: "cmVjZWlwdA=="))
        rig.clock.advance(by: .seconds(120))
        #expect(later.value?.verdict == .unverified(.stopped(last: nil)))
        #expect(rig.transport.sent.count == 1)
    }

    @Test func aDrainingRunAsksNoNewQuestionButFinishesTheHopOfOneAsked() {
        let rig = Rig { request, _ in
            request.url.path.hasSuffix("production") ? .status(200, #"{"status":21007}"#) : .status(200, Self.valid)
        }
        let asked = rig.start(Self.verifyReceipt().verification(of: "cmVjZWlwdA=="))
        rig.draining.store(true, ordering: .relaxed)
        let notAsked = rig.start(Self.verifyReceipt().verification(of: "cmVjZWlwdA=="))
        rig.clock.advance(by: .seconds(1))
        #expect(notAsked.value?.verdict == .unverified(.stopped(last: nil)))
        #expect(notAsked.value?.requests == 0)
        #expect(asked.value?.verdict == .valid, "a sandbox receipt asked before the drain is answered by its hop")
        #expect(asked.recorded.hops == 1)
        #expect(rig.transport.sent.map(\.request.url.lastPathComponent) == ["production", "sandbox"])
    }

    @Test func aDrainingRunMakesNoRetry() {
        let rig = Rig { _, _ in .status(503, "busy") }
        let outcome = rig.start(Self.verifyReceipt().verification(of: "cmVjZWlwdA=="))
        rig.draining.store(true, ordering: .relaxed)
        rig.clock.advance(by: .seconds(10))
        guard case .unverified(.stopped(let last))? = outcome.value?.verdict else {
            Issue.record("expected a stop, got \(String(describing: outcome.value?.verdict))")
            return
        }
        #expect(last != nil)
        #expect(rig.transport.sent.count == 1)
        #expect(outcome.recorded.retries == 0)
    }

    @Test func theRateHoldsAcrossExchanges() {
        let rig = Rig(rate: 10, burst: 1, maxInFlight: 64) { _, _ in .status(200, Self.valid) }
        let client = Self.verifyReceipt()
        let outcomes = (0..<30).map { _ in rig.start(client.verification(of: "cmVjZWlwdA==")) }
        rig.clock.advance(by: .seconds(4))
        #expect(outcomes.allSatisfy { $0.value?.verdict == .valid })
        let starts = rig.transport.sent.map(\.started).sorted()
        #expect(ThrottleTests.busiestSecond(starts) <= 11)
        #expect(starts.last! - starts.first! >= .milliseconds(2800), "30 requests at 10/s take ~3 s")
    }

    @Test func theInFlightCapHolds() {
        let rig = Rig(maxInFlight: 3) { _, _ in .status(200, Self.valid, latency: .seconds(1)) }
        let client = Self.verifyReceipt()
        let outcomes = (0..<10).map { _ in rig.start(client.verification(of: "cmVjZWlwdA==")) }
        rig.clock.advance(by: .milliseconds(3500))
        #expect(outcomes.filter { $0.value != nil }.count == 9)
        rig.clock.advance(by: .seconds(1))
        #expect(outcomes.allSatisfy { $0.value?.verdict == .valid })
        #expect(rig.transport.sent.map(\.inFlight).max() == 3)
        #expect(rig.driver.peakInFlight == 3)
    }

    @Test func serverAPITrafficCountsThrottlingHopsAndAnswers() {
        let rig = Rig { request, index in
            switch index {
            // The Server API's `Retry-After` is a Unix time in milliseconds: 1.1 s after the clock's epoch.
            case 0: .status(429, #"{"errorCode":4290000}"#, headers: ["Retry-After": "1800000001100"])
            default: .status(404, #"{"errorCode":4040010}"#)
            }
        }
        let client = ServerAPIClient(
            configuration: ServerAPIClient.Configuration(
                productionURL: URL(string: "http://apple.invalid/production")!,
                sandboxURL: URL(string: "http://apple.invalid/sandbox")!,
                backoff: BackoffPolicy(base: .milliseconds(10), cap: .milliseconds(50), seed: 1)),
            verifier: SignedDataVerifier(anchors: []))
        let outcome = rig.start(
            client.history(of: "2000000000000001", bundleID: "com.example", environment: .production, mayHop: true))
        rig.clock.advance(by: .seconds(5))
        guard case .notFound? = outcome.value else {
            Issue.record("unknown in both environments is notFound: \(String(describing: outcome.value))")
            return
        }
        let traffic = outcome.recorded
        #expect(traffic.requests == 3)
        #expect(traffic.throttled == 1)
        #expect(traffic.retries == 1)
        #expect(traffic.hops == 1)
        #expect(traffic.requestsByEndpoint == ["transaction_history": 3])
        #expect(traffic.serverAPIAnswers == ["429/4290000": 1, "404/4040010": 2])
        let sent = rig.transport.sent
        #expect(sent[1].started - sent[0].started >= .milliseconds(1100), "429's Retry-After is honoured")
        #expect(sent.map { $0.request.url.pathComponents[1] } == ["production", "production", "sandbox"])
    }

    @Test func anExchangeThatNeedsNoRequestFinishesBeforeRunReturns() {
        let rig = Rig { _, _ in .status(200, Self.valid) }
        let client = ServerAPIClient(
            configuration: ServerAPIClient.Configuration(
                productionURL: URL(string: "http://apple.invalid/p")!,
                sandboxURL: URL(string: "http://apple.invalid/s")!),
            verifier: SignedDataVerifier(anchors: []))
        let outcome = rig.start(
            client.history(of: "not-digits", bundleID: "com.example", environment: .production, mayHop: true))
        guard case .invalidID? = outcome.value else {
            Issue.record("an id Apple cannot have issued is invalid without a request")
            return
        }
        #expect(rig.transport.sent.isEmpty)
        #expect(outcome.recorded.requests == 0)
    }
}
