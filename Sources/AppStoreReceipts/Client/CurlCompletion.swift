import Synchronization

/// Where the curl loop thread leaves the outcome of one request: the handler `send` was given.
///
/// Threading: `finish` is called by the loop thread; only the first call counts. The handler runs on
/// the loop thread, so it must hand its work elsewhere and return.
final class CurlCompletion: Sendable {
    private let finished = Atomic(false)
    private let handler: HTTPCompletion

    init(handler: @escaping HTTPCompletion) {
        self.handler = handler
    }

    func finish(_ result: HTTPExchangeResult) {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        handler(result)
    }
}
