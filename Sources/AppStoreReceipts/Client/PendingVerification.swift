import Foundation

/// A verification started with `VerifyReceiptClient.start`, between the request it sent and the answer.
///
/// Threading: `@unchecked Sendable` because its state is touched by one thread at a time, in turn: the
/// one that sends, then, after the transport's callback, the executor's thread that records the answer
/// and sends again or finishes. The transport's callback itself only measures and hands over.
final class PendingVerification: @unchecked Sendable {
    private let client: VerifyReceiptClient
    private var progress: VerificationProgress
    private let shouldStop: @Sendable () -> Bool
    private let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
    private let completion: @Sendable (VerificationReport) -> Void

    init(
        client: VerifyReceiptClient, progress: VerificationProgress, shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (VerificationReport) -> Void
    ) {
        self.client = client
        self.progress = progress
        self.shouldStop = shouldStop
        self.executor = executor
        self.completion = completion
    }

    /// Sends the next request once the throttle grants it a slot: at once, or when another request
    /// ends (then on that request's thread, usually the transport's). A slot granted after the client
    /// stopped is handed back unused, and the verification ends "stopped".
    func send() {
        client.throttle.begin { wait in
            guard !self.client.waits.isStopped else {
                self.client.throttle.end()
                return self.executor { self.completion(self.progress.stopped()) }
            }
            let clock = self.client.clock
            let started = clock.now()
            self.client.transport.send(
                self.client.configuration.url(for: self.progress.attempt.endpoint), body: self.progress.body,
                headers: self.client.requestHeaders, timeout: self.client.configuration.timeout, startingIn: wait,
                clock: clock
            ) { result in
                let latency = clock.now() - started - wait
                self.client.throttle.end()
                self.executor { self.received(result, latency: latency) }
            }
        }
    }

    private func received(_ result: HTTPExchangeResult, latency: Duration) {
        let client = self.client
        switch progress.record(
            result, latency: latency, configuration: client.configuration,
            now: client.clock.wallClock(), shouldStop: { self.shouldStop() || client.waits.isStopped })
        {
        case .finished(let report): completion(report)
        case .send(after: let backoff):
            client.after(backoff) { stopped in
                guard stopped else { return self.send() }
                self.executor { self.completion(self.progress.stopped()) }
            }
        }
    }
}
