import AppStoreReceipts
import Dispatch
import Synchronization

extension ServerAPIClient {
    /// `history(of:…)`, waited for: the lookup and its traffic. The completion runs on a serial queue of
    /// the test's own, never on a thread the test pool needs (DESIGN.md, trap 1).
    public func historyNow(
        of id: String, bundleID: String = "com.example", environment: AppStoreEnvironment = .production,
        mayHop: Bool = true
    ) -> (lookup: ServerAPILookup<ServerAPIHistory>, traffic: ServerAPITraffic) {
        Self.wait { completion in
            history(
                of: id, bundleID: bundleID, environment: environment, mayHop: mayHop, shouldStop: { false },
                executor: Self.executor, completion: completion)
        }
    }

    /// `statuses(of:…)`, waited for.
    public func statusesNow(
        of id: String, bundleID: String = "com.example", environment: AppStoreEnvironment = .production
    ) -> (lookup: ServerAPILookup<ServerAPIStatuses>, traffic: ServerAPITraffic) {
        Self.wait { completion in
            statuses(
                of: id, bundleID: bundleID, environment: environment, shouldStop: { false }, executor: Self.executor,
                completion: completion)
        }
    }

    private static let queue = DispatchQueue(label: "server-api-tests")

    private static let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void = { work in
        queue.async(execute: work)
    }

    private static func wait<Value: Sendable>(
        _ start: (@escaping @Sendable (Value, ServerAPITraffic) -> Void) -> Void
    ) -> (Value, ServerAPITraffic) {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<(Value, ServerAPITraffic)?>(nil)
        start { value, traffic in
            result.withLock { $0 = (value, traffic) }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
