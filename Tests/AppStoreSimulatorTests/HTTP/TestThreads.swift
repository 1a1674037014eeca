import Foundation
import Synchronization

/// Runs blocking test code on dedicated `Thread`s and awaits it without blocking a pool thread.
///
/// Swift Testing runs test functions on the cooperative pool, which on Linux is Dispatch's global pool
/// with about one thread per core; blocking it (sockets, `stop()`, semaphores) would serialize parallel
/// tests and stall URLSession (DESIGN trap 1). So every blocking step goes through these helpers.
enum TestThreads {
    private final class Collector<T: Sendable>: Sendable {
        let results: Mutex<[Result<T, any Error>?]>
        let remaining: Atomic<Int>

        init(count: Int) {
            results = Mutex(Array(repeating: nil, count: count))
            remaining = Atomic(count)
        }
    }

    /// Runs `body(0..<count)`, each call on its own thread; returns the results in index order, or
    /// rethrows the first error once all threads have finished.
    static func run<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) async throws -> [T] {
        guard count > 0 else { return [] }
        let collector = Collector<T>(count: count)
        let results: [Result<T, any Error>] = await withCheckedContinuation { continuation in
            for index in 0..<count {
                let thread = Thread {
                    let result = Result { try body(index) }
                    collector.results.withLock { $0[index] = result }
                    if collector.remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                        continuation.resume(returning: collector.results.withLock { $0.compactMap { $0 } })
                    }
                }
                thread.stackSize = 1 << 20
                thread.start()
            }
        }
        return try results.map { try $0.get() }
    }

    /// Runs one blocking closure on its own thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await run(1) { _ in try body() }[0]
    }

    /// Starts `body` on its own thread now, to be awaited later (`Started.value`). Not `async let
    /// … = run { }`: a child task starts only when the pool has a thread free, and other suites'
    /// blocking work can hold both for a minute, so a client meant to be in flight before the test's
    /// next step would start after it.
    static func start<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> Started<T> {
        Started(body)
    }
}

/// A closure already running on a thread of its own, and its result once it has one.
final class Started<T: Sendable>: Sendable {
    private enum State {
        case running
        case awaited(CheckedContinuation<Result<T, any Error>, Never>)
        case finished(Result<T, any Error>)
    }

    private let state = Mutex(State.running)

    fileprivate init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            let result = Result { try body() }
            let waiting = state.withLock { state -> CheckedContinuation<Result<T, any Error>, Never>? in
                defer { state = .finished(result) }
                guard case .awaited(let continuation) = state else { return nil }
                return continuation
            }
            waiting?.resume(returning: result)
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The closure's result, or its error, once it has returned; awaited without blocking a pool thread,
    /// by one test at a time (a second awaiter while the first waits would replace it).
    var value: T {
        get async throws {
            let result = await withCheckedContinuation { continuation in
                let finished = state.withLock { state -> Result<T, any Error>? in
                    if case .finished(let result) = state { return result }
                    state = .awaited(continuation)
                    return nil
                }
                if let finished { continuation.resume(returning: finished) }
            }
            return try result.get()
        }
    }
}

/// A thread-safe high-water mark, for "how many were in flight at once".
final class ConcurrencyGauge: Sendable {
    private let current = Atomic<Int>(0)
    private let peakValue = Atomic<Int>(0)

    var peak: Int { peakValue.load(ordering: .relaxed) }
    var now: Int { current.load(ordering: .relaxed) }

    func enter() {
        let value = current.add(1, ordering: .relaxed).newValue
        var peak = peakValue.load(ordering: .relaxed)
        while value > peak {
            let (done, original) = peakValue.compareExchange(expected: peak, desired: value, ordering: .relaxed)
            if done { break }
            peak = original
        }
    }

    func leave() {
        current.subtract(1, ordering: .relaxed)
    }

    /// Holds the caller for at least `minimum`, and until `target` are in flight or `limit` passes.
    ///
    /// A fixed sleep would make "≥ 64 at once" depend on how fast a loaded 2-core machine starts 64
    /// clients; waiting for the target proves the concurrency without timing assumptions, and a server
    /// that serialized requests would sit here for `limit` with a peak of 1.
    func hold(minimum: Duration, untilInFlight target: Int, limit: Duration) {
        let start = ContinuousClock.now
        Thread.sleep(
            forTimeInterval: Double(minimum.components.seconds) + Double(minimum.components.attoseconds) / 1e18)
        while peak < target && ContinuousClock.now - start < limit {
            Thread.sleep(forTimeInterval: 0.005)
        }
    }
}

/// A `Mutex` in a class, so escaping `@Sendable` closures (handlers, threads) can share it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&$0) }
    }
}
