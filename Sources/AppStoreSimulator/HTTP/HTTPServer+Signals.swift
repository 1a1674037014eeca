import Dispatch
import Glibc
import Synchronization

extension HTTPServer {
    /// Stops this server gracefully (`beginStop()`) when the process receives one of `signals`.
    ///
    /// For `simulator serve`: `try server.start(); server.stopOnSignals(); server.waitUntilStopped()`.
    /// The signals are set to `SIG_IGN` (so their default action no longer kills the process) and watched by
    /// Dispatch signal sources on a serial queue of their own: the main thread is blocked in
    /// `waitUntilStopped()`, so `.main` would never run the handler. The handler closure is built here, in
    /// library code, because one formed in `main.swift` would inherit main-actor isolation and trap when it
    /// fires on the signal queue (DESIGN trap 5). The sources live as long as the server runs and are
    /// cancelled when it stops; the signals stay ignored afterwards, since the process is about to exit.
    ///
    /// Returns once the sources are registered with the kernel (normally well under a millisecond; at most
    /// one second): Dispatch registers asynchronously, and a signal arriving before that is ignored and
    /// lost.
    public func stopOnSignals(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        let queue = DispatchQueue(label: "receipt-recon.http.signals")
        let registered = DispatchSemaphore(value: 0)
        var sources: [DispatchSource] = []
        for number in signals {
            signal(number, SIG_IGN)
            // `DispatchSourceSignal` is not Sendable; the `DispatchSource` class is, so keep that.
            guard let source = DispatchSource.makeSignalSource(signal: number, queue: queue) as? DispatchSource else {
                continue
            }
            source.setEventHandler { @Sendable [weak self] in
                self?.beginStop()
            }
            source.setRegistrationHandler { @Sendable in
                registered.signal()
            }
            source.resume()
            sources.append(source)
        }
        for _ in sources {
            _ = registered.wait(timeout: .now() + 1)
        }
        let keep = state.withLock { state in
            guard state.phase != .stopped else { return false }
            state.signalSources += sources
            return true
        }
        if !keep {
            for source in sources { source.cancel() }
        }
    }
}
