import Foundation

/// Prints a progress line on stderr every `interval` seconds while the job runs, so a long bench shows
/// it is alive (the job draws its own progress only on a terminal, and its stderr is a pipe here).
///
/// Threading: `Sendable`; its own thread sleeps on a semaphore that `stop()` signals.
final class ProgressReporter: Sendable {
    private let interval: TimeInterval
    private let line: @Sendable () -> String?
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(every interval: TimeInterval, line: @escaping @Sendable () -> String?) {
        self.interval = interval
        self.line = line
    }

    func start() {
        Thread.detachNewThread { [self] in
            while stopped.wait(timeout: .now() + interval) == .timedOut {
                if let text = line() {
                    FileHandle.standardError.write(Data("receipt-recon-bench: \(text)\n".utf8))
                }
            }
            finished.signal()
        }
    }

    /// Stops the thread and waits for it, so no line follows the caller's next one.
    func stop() {
        stopped.signal()
        finished.wait()
    }
}
