import AppStoreReceipts
import Dispatch
import Synchronization

extension ExchangeDriver {
    /// Drives `exchange` and waits for its result and the traffic it cost: how tests ask Apple one
    /// question at a time through the code the run uses. Answers are handled on a serial queue of the
    /// tests' own, never on a thread the test pool needs (DESIGN.md, trap 1).
    /// - Parameter isDraining: the run's "no new question, no retry" signal.
    public func resultNow<Exchange: AppleExchange>(
        of exchange: Exchange, isDraining: @escaping @Sendable () -> Bool = { false }
    ) -> (result: Exchange.Result, traffic: AppleTraffic) {
        let done = DispatchSemaphore(value: 0)
        let traffic = Mutex(AppleTraffic())
        let result = Mutex<Exchange.Result?>(nil)
        let context = ExchangeContext(
            executor: Self.testExecutor, isDraining: isDraining,
            recordTraffic: { recorded in traffic.withLock { $0.add(recorded) } })
        run(exchange, context: context) { value in
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return (result.withLock { $0! }, traffic.withLock { $0 })
    }

    /// Starts `exchange` without waiting; `completion` runs on the tests' serial queue.
    public func start<Exchange: AppleExchange>(
        _ exchange: Exchange, isDraining: @escaping @Sendable () -> Bool = { false },
        completion: @escaping @Sendable (Exchange.Result) -> Void
    ) {
        run(
            exchange, context: ExchangeContext(executor: Self.testExecutor, isDraining: isDraining),
            completion: completion)
    }

    private static let queue = DispatchQueue(label: "exchange-tests")

    /// The tests' executor: a serial queue of their own.
    public static let testExecutor = WorkExecutor { work in queue.async(execute: work) }
}
