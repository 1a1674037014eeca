import Dispatch
import Foundation
import Synchronization

/// SIGINT/SIGTERM as a flag the run polls: stop taking work, finish what is in flight, record the run
/// as `interrupted`, exit 75 (CONTRACT §6). What waits rather than polls (retry backoffs, `Retry-After`
/// and throttle waits) registers with `onRequest` and is woken the moment the signal arrives.
///
/// The handlers are built here, in library code, and run on their own queue: a closure formed in
/// `main.swift` would inherit main-actor isolation and trap when the signal fires (DESIGN trap 5).
/// The signal sources are resumed before `install` returns, so a signal right after it is not lost.
public final class ShutdownSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    private let signalName = Mutex<String?>(nil)
    private let sources = Mutex<[DispatchSource]>([])
    /// Run once, by the first `request`.
    private let actions = Mutex<[@Sendable () -> Void]>([])
    private let queue = DispatchQueue(label: "receipt-recon.signals")

    public init() {}

    public var isRequested: Bool { requested.load(ordering: .acquiring) }
    public var name: String? { signalName.withLock { $0 } }

    /// Marks shutdown as requested (the signal handlers call this; tests may too), and runs the
    /// `onRequest` actions the first time.
    public func request(_ name: String) {
        let first = signalName.withLock { signal -> Bool in
            guard signal == nil else { return false }
            signal = name
            return true
        }
        requested.store(true, ordering: .releasing)
        guard first else { return }
        for action in actions.withLock({ actions in
            defer { actions = [] }
            return actions
        }) { action() }
    }

    /// Runs `action` once shutdown is requested (at once when it already was), on the thread that
    /// requests it: `action` must not block.
    public func onRequest(_ action: @escaping @Sendable () -> Void) {
        let registered = actions.withLock { actions -> Bool in
            guard !isRequested else { return false }
            actions.append(action)
            return true
        }
        if !registered { action() }
    }

    /// Routes SIGINT and SIGTERM here instead of ending the process.
    public func install() {
        let registered = DispatchSemaphore(value: 0)
        var installed: [DispatchSource] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            // `DispatchSourceSignal` is not Sendable; the `DispatchSource` class is, so keep that.
            guard let source = DispatchSource.makeSignalSource(signal: number, queue: queue) as? DispatchSource else {
                continue
            }
            source.setEventHandler { @Sendable [weak self] in self?.request(name) }
            source.setRegistrationHandler { @Sendable in registered.signal() }
            source.resume()
            installed.append(source)
        }
        // Registration is asynchronous, and a signal that arrives before it is lost:
        // wait for both registrations before the run starts taking work.
        for _ in installed { _ = registered.wait(timeout: .now() + 1) }
        sources.withLock { $0 += installed }
    }
}
