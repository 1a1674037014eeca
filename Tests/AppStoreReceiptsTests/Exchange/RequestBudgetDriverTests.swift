import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

/// The driver and the run's request budget, on a virtual clock with a scripted transport: every
/// request sent took one grant, a wait is waited on the clock (and a signal ends it), and a spent
/// budget ends the asking and is told to the run once.
@Suite struct RequestBudgetDriverTests {
    /// A budget that answers from a script, then grants; it records what it was asked.
    final class ScriptedBudget: RequestBudget {
        private let script: Mutex<[BudgetAnswer]>
        private let then: BudgetAnswer
        private let log = Mutex<[(limit: AppleLimitKey, purpose: RequestPurpose, answer: BudgetAnswer)]>([])

        init(_ script: [BudgetAnswer] = [], then: BudgetAnswer = .granted) {
            self.script = Mutex(script)
            self.then = then
        }

        func take(_ limit: AppleLimitKey, purpose: RequestPurpose) -> BudgetAnswer {
            let answer = script.withLock { $0.isEmpty ? then : $0.removeFirst() }
            log.withLock { $0.append((limit, purpose, answer)) }
            return answer
        }

        var limits: [AppleLimitKey] { log.withLock { $0.map(\.limit) } }

        var asked: [RequestPurpose] { log.withLock { $0.map(\.purpose) } }
        var grants: Int { log.withLock { $0.filter { $0.answer == .granted }.count } }
    }

    /// A driver with `budget` on a virtual clock; answers run on the advancing thread.
    final class Rig: Sendable {
        let clock = VirtualClock()
        let transport: ScriptedTransport
        let driver: ExchangeDriver
        let budget: ScriptedBudget
        let draining = Atomic(false)
        let spentReports = Mutex<[AppleLimitKey]>([])

        init(
            budget: ScriptedBudget,
            script: @escaping @Sendable (HTTPClientRequest, Int) -> ScriptedTransport.Reply = { _, _ in
                .status(200, "{}")
            }
        ) {
            self.budget = budget
            transport = ScriptedTransport(clock: clock, script: script)
            driver = ExchangeDriver(transport: transport, rate: 1000, maxInFlight: 8, clock: clock, budget: budget)
        }

        func start<Exchange: AppleExchange>(_ exchange: Exchange) -> ExchangeDriverTests.Outcome<Exchange.Result> {
            let outcome = ExchangeDriverTests.Outcome<Exchange.Result>()
            let context = ExchangeContext(
                executor: WorkExecutor { $0() }, isDraining: { [self] in draining.load(ordering: .relaxed) },
                recordTraffic: { traffic in outcome.traffic.withLock { $0.add(traffic) } },
                budgetSpent: { [self] endpoint in spentReports.withLock { $0.append(endpoint) } })
            driver.run(exchange, context: context) { result in outcome.result.withLock { $0 = result } }
            return outcome
        }
    }

    /// Sends one request per purpose, in turn, to Get Transaction History; its result says what
    /// happened to each ("answer 200", or the stop that ended it).
    struct Requests: AppleExchange {
        var purposes: [RequestPurpose]
        var events: [String] = []

        init(_ purposes: [RequestPurpose]) { self.purposes = purposes }

        mutating func start() -> ExchangeStep<[String]> { next() }

        mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<[String]> {
            switch event {
            case .answer(let answer):
                if case .response(let response) = answer.result {
                    events.append("answer \(response.statusCode)")
                } else {
                    events.append("failure")
                }
                return next()
            case .stop(let point):
                events.append("stop \(point)")
                return .finish(events)
            }
        }

        private mutating func next() -> ExchangeStep<[String]> {
            guard !purposes.isEmpty else { return .finish(events) }
            let purpose = purposes.removeFirst()
            let http = HTTPClientRequest(
                method: .get, url: URL(string: "http://apple.invalid/inApps/v2/history/1")!, headers: [:],
                timeout: .seconds(30))
            return .send(AppleRequest(http, endpoint: Self.endpoint, purpose: purpose), after: .zero)
        }

        static let endpoint = AppleEndpoint.serverAPI(.transactionHistory)
    }

    @Test func aSpentBudgetEndsTheAskingAndIsToldOnce() {
        // Two requests granted, then spent.
        let rig = Rig(budget: ScriptedBudget([.granted, .granted], then: .spent))
        let first = rig.start(Requests([.ask, .continuation, .continuation]))
        rig.clock.advance(by: .seconds(1))
        #expect(first.value == ["answer 200", "answer 200", "stop beforeAsking"])
        let later = (0..<3).map { _ in rig.start(Requests([.ask])) }
        rig.clock.advance(by: .seconds(1))
        for outcome in later { #expect(outcome.value == ["stop beforeAsking"]) }
        #expect(rig.transport.sent.count == 2, "nothing is sent once the budget is spent")
        #expect(
            rig.spentReports.withLock { $0 } == [AppleLimitKey(Requests.endpoint, .production)],
            "the run is told once per endpoint")
        #expect(rig.budget.asked == [.ask, .continuation, .continuation, .ask, .ask, .ask])
    }

    /// The run's retry and hop figures count what reached Apple: a retry the budget refused was never sent.
    @Test func aRetryTheBudgetRefusedIsNotCountedAsSent() {
        let rig = Rig(budget: ScriptedBudget([.granted, .granted], then: .spent))
        let outcome = rig.start(Requests([.ask, .retry, .hop, .retry]))
        rig.clock.advance(by: .seconds(1))
        #expect(outcome.value == ["answer 200", "answer 200", "stop beforeAsking"])
        let traffic = outcome.traffic.withLock { $0 }
        #expect(traffic.requests == 2)
        #expect(traffic.retries == 1, "the retry sent, not the hop refused")
        #expect(traffic.hops == 0)
    }

    @Test func aWaitIsWaitedOnTheClockThenTheRequestIsSent() {
        let rig = Rig(budget: ScriptedBudget([.wait(seconds: 30)]))
        let outcome = rig.start(Requests([.ask]))
        rig.clock.advance(by: .seconds(29))
        #expect(rig.transport.sent.isEmpty, "the window opens in 30 s")
        #expect(rig.budget.asked == [.ask])
        rig.clock.advance(by: .seconds(2))
        #expect(rig.transport.sent.count == 1)
        #expect(rig.transport.sent.first.map { $0.started >= .seconds(30) } == true)
        #expect(outcome.value == ["answer 200"])
        #expect(rig.budget.asked == [.ask, .ask], "asked again once the wait is over")
        #expect(rig.spentReports.withLock { $0 }.isEmpty)
    }

    @Test func aSignalDuringABudgetWaitEndsItAndSendsNothingMore() {
        let rig = Rig(budget: ScriptedBudget([.wait(seconds: 3600)]))
        let outcome = rig.start(Requests([.ask, .continuation]))
        rig.clock.advance(by: .seconds(1))
        #expect(outcome.value == nil, "waiting for the next window")
        rig.driver.stop()
        #expect(outcome.value == ["stop duringBackoff"], "the signal ends the wait at once")
        let later = rig.start(Requests([.ask]))
        rig.clock.advance(by: .seconds(7200))
        #expect(later.value == ["stop beforeSending"])
        #expect(rig.transport.sent.isEmpty)
        #expect(rig.budget.asked == [.ask], "a stopped run asks the budget for nothing more")
    }

    @Test func aRunThatStartedDrainingDuringTheWaitAsksNothingNewButFinishesContinuations() {
        let rig = Rig(budget: ScriptedBudget([.wait(seconds: 60), .wait(seconds: 60)]))
        let ask = rig.start(Requests([.ask]))
        let continuation = rig.start(Requests([.continuation]))
        rig.draining.store(true, ordering: .relaxed)
        rig.clock.advance(by: .seconds(61))
        #expect(ask.value == ["stop beforeAsking"])
        #expect(continuation.value == ["answer 200"])
        #expect(rig.transport.sent.count == 1)
        #expect(rig.budget.asked == [.ask, .continuation, .continuation])
    }

    @Test func everyRequestSentTookOneGrantRetriesAndHopsIncluded() {
        // verifyReceipt: production says 21007 (a hop to sandbox), sandbox is busy once (a retry).
        let rig = Rig(budget: ScriptedBudget()) { request, index in
            if request.url.path.hasSuffix("production") { return .status(200, #"{"status":21007}"#) }
            return index == 1
                ? .status(503, "busy", headers: ["Retry-After": "2"]) : .status(200, ExchangeDriverTests.valid)
        }
        let verification = rig.start(ExchangeDriverTests.verifyReceipt().verification(of: "cmVjZWlwdA=="))
        rig.clock.advance(by: .milliseconds(1000))
        #expect(rig.budget.asked == [.ask, .hop], "the retry is not granted before its backoff is over")
        let walk = rig.start(Requests([.ask, .continuation, .continuation, .retry]))
        rig.clock.advance(by: .seconds(5))
        #expect(verification.value?.verdict == .valid)
        #expect(verification.recorded.hops == 1 && verification.recorded.retries == 1)
        #expect(walk.value == ["answer 200", "answer 200", "answer 200", "answer 200"])
        #expect(rig.transport.sent.count == 7)
        #expect(rig.budget.grants == rig.transport.sent.count, "one grant per request sent")
        #expect(rig.budget.asked.filter { $0 == .retry }.count == 2)
    }
}
