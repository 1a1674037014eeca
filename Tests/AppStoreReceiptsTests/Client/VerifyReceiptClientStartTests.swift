import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Synchronization
import TestSupport
import Testing

/// A verification driven by `ExchangeDriver.run`, the job's way to verify: the same routing and retries as
/// the tests' waiting `verify`, without a thread waiting per request, and everything after an answer run by
/// the caller's executor.
@Suite struct VerifyReceiptClientStartTests {
    static let receipt = VerifyReceiptClientLoopbackTests.receipt

    /// An executor of the test's own: one thread, so the test can tell the work ran there.
    final class TestExecutor: Sendable {
        private let queue = Mutex<[@Sendable () -> Void]>([])
        private let bell = DispatchSemaphore(value: 0)
        private let thread = Mutex<pthread_t?>(nil)

        /// Whether the calling thread is the executor's.
        var isCurrent: Bool { thread.withLock { $0 } == pthread_self() }

        init() {
            let thread = Thread { [self] in
                self.thread.withLock { $0 = pthread_self() }
                while true {
                    bell.wait()
                    for work in queue.withLock({ work in
                        defer { work = [] }
                        return work
                    }) { work() }
                }
            }
            thread.start()
        }

        func run(_ work: @escaping @Sendable () -> Void) {
            queue.withLock { $0.append(work) }
            bell.signal()
        }
    }

    /// The traffic the driver reports, added up.
    final class TrafficTally: Sendable {
        private let total = Mutex(AppleTraffic())
        var traffic: AppleTraffic { total.withLock { $0 } }
        func add(_ traffic: AppleTraffic) { total.withLock { $0.add(traffic) } }
    }

    /// The run's context for `executor`, adding the traffic it is told of to `tally`.
    static func context(_ executor: TestExecutor, tally: TrafficTally) -> ExchangeContext {
        ExchangeContext(executor: WorkExecutor { executor.run($0) }, recordTraffic: { tally.add($0) })
    }

    /// Starts one verification and waits for its report and traffic, noting whether the completion ran on
    /// the executor.
    static func started(_ rig: VerifyReceiptRig, executor: TestExecutor) -> (
        report: VerificationReport?, traffic: AppleTraffic, onExecutor: Bool
    ) {
        let outcome = Mutex<(VerificationReport?, Bool)>((nil, false))
        let tally = TrafficTally()
        let done = DispatchSemaphore(value: 0)
        rig.driver.run(rig.client.verification(of: receipt), context: context(executor, tally: tally)) { report in
            outcome.withLock { $0 = (report, executor.isCurrent) }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 30)
        let (report, onExecutor) = outcome.withLock { $0 }
        return (report, tally.traffic, onExecutor)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func aHopAndRetriesGiveTheSameReportAsVerifyAndFinishOnTheExecutor(_ transport: HTTPTransportKind) throws {
        let script: [ScriptedAppleServer.Answer] = [.status(21007)]
        let sandbox: [ScriptedAppleServer.Answer] = [.status(21005), .status(0, extra: #","environment":"Sandbox""#)]
        let viaVerify = try ScriptedAppleServer(production: script, sandbox: sandbox)
        let expected = viaVerify.client(transport: transport).verify(receiptData: Self.receipt)

        let apple = try ScriptedAppleServer(production: script, sandbox: sandbox)
        let (report, traffic, onExecutor) = Self.started(apple.client(transport: transport), executor: TestExecutor())
        let got = try #require(report, "start never completed")
        #expect(got.verdict == expected.verdict && got.verdict == .valid)
        #expect(got.detail == expected.detail)
        #expect((got.requests, traffic.retries, traffic.hops) == (expected.requests, expected.retries, expected.hops))
        #expect((got.requests, traffic.requests, traffic.retries, traffic.hops) == (3, 3, 1, 1))
        #expect(got.environment == .sandbox)
        #expect(apple.endpoints == ["production", "sandbox", "sandbox"])
        #expect(onExecutor, "the completion ran off the executor")
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func aRetryAfterIsWaitedOutBeforeTheNextRequest(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [
            .http(503, body: "<html>down</html>", headers: [("Retry-After", "1")]),
            .status(0),
        ])
        let started = Date()
        let (report, _, _) = Self.started(apple.client(transport: transport), executor: TestExecutor())
        #expect(Date().timeIntervalSince(started) >= 1.0)
        #expect(report?.verdict == .valid)
        #expect(report?.requests == 2)
    }

    /// The point of the driver: one thread starts sixty-four verifications, all in flight together, and
    /// none of the starts waits for an answer. Proved by arrivals: the server answers none until all 64
    /// are held at once, so a start that waited for its answer would keep the gate shut.
    @Test func oneThreadKeepsSixtyFourRequestsInFlight() throws {
        let apple = try ScriptedAppleServer(production: [.together(64, .status(0))])
        let rig = apple.client(transport: .curl, concurrency: 64)
        let executor = TestExecutor()
        let tally = TrafficTally()
        let valid = Atomic(0)
        let finished = Atomic(0)
        let done = DispatchGroup()
        for _ in 0..<64 {
            done.enter()
            rig.driver.run(rig.client.verification(of: Self.receipt), context: Self.context(executor, tally: tally)) {
                report in
                if report.verdict == .valid { valid.add(1, ordering: .relaxed) }
                finished.add(1, ordering: .relaxed)
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(apple.gateFilled, "the 64 requests were never held at the server together")
        #expect(finished.load(ordering: .relaxed) == 64)
        #expect(valid.load(ordering: .relaxed) == 64)
        #expect(tally.traffic.requests == 64)
        #expect(apple.server.stats.peakRequestsInFlight == 64)
    }
}
