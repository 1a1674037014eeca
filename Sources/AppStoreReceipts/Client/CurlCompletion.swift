import Dispatch
import Synchronization

/// Where the curl loop thread leaves the outcome of one request, and what its lane waits on.
///
/// Threading: `finish` is called by the loop thread (or by the lane itself when it gives up), `wait` by
/// the lane that submitted the request. Only the first `finish` counts, so a late answer after the
/// lane's backstop fired is dropped instead of signalling a semaphore nobody waits on twice.
final class CurlCompletion: Sendable {
    private let outcome = Mutex<HTTPExchangeResult?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ result: HTTPExchangeResult) {
        let first = outcome.withLock { outcome -> Bool in
            guard outcome == nil else { return false }
            outcome = result
            return true
        }
        if first { done.signal() }
    }

    /// The outcome, or nil when `deadline` passed first.
    func wait(until deadline: DispatchTime) -> HTTPExchangeResult? {
        guard done.wait(timeout: deadline) == .success else { return nil }
        return outcome.withLock { $0 }
    }
}
