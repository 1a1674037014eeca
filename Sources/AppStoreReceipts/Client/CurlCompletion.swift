import Dispatch
import Synchronization

/// Where the curl loop thread leaves the outcome of one request: for a blocking `post`, what its lane
/// waits on; for `send`, the handler it calls.
///
/// Threading: `finish` is called by the loop thread (or by the lane itself when it gives up), `wait` by
/// the lane that submitted the request. Only the first `finish` counts, so a late answer after the
/// lane's backstop fired is dropped instead of signalling a semaphore nobody waits on twice. A handler
/// runs on the loop thread, so it must hand its work elsewhere and return.
final class CurlCompletion: Sendable {
    private let outcome = Mutex<HTTPExchangeResult?>(nil)
    private let done = DispatchSemaphore(value: 0)
    private let handler: (@Sendable (HTTPExchangeResult) -> Void)?

    /// - Parameter handler: called once with the outcome instead of waking a `wait`.
    init(handler: (@Sendable (HTTPExchangeResult) -> Void)? = nil) {
        self.handler = handler
    }

    func finish(_ result: HTTPExchangeResult) {
        let first = outcome.withLock { outcome -> Bool in
            guard outcome == nil else { return false }
            outcome = result
            return true
        }
        guard first else { return }
        if let handler { handler(result) } else { done.signal() }
    }

    /// The outcome, or nil when `deadline` passed first.
    func wait(until deadline: DispatchTime) -> HTTPExchangeResult? {
        guard done.wait(timeout: deadline) == .success else { return nil }
        return outcome.withLock { $0 }
    }
}
