import Foundation
import Glibc
import Synchronization

/// A listening loopback socket and the thread that accepts on it: the part every raw test server
/// shares. Each accepted connection (close-on-exec) goes to `handle`, on the accept thread, which owns
/// it from then on: it closes it, or hands it to a thread of its own.
///
/// Threading: `stop()` (also run on deinit) may be called from any thread and more than once; it
/// returns once the accept thread has ended and the listener is closed. The thread never keeps the
/// listener object alive.
public final class LoopbackListener: Sendable {
    public let port: UInt16
    private let state: State

    private final class State: Sendable {
        let descriptor: Int32
        let stopping = Atomic(false)
        let finished = DispatchSemaphore(value: 0)

        init(descriptor: Int32) { self.descriptor = descriptor }
    }

    /// Starts accepting on a free loopback port.
    public init(backlog: Int32 = 128, handle: @escaping @Sendable (_ connection: Int32) -> Void) throws {
        let (descriptor, port) = try LoopbackSocket.open(listenBacklog: backlog)
        self.port = port
        let state = State(descriptor: descriptor)
        self.state = state
        let thread = Thread {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while !state.stopping.load(ordering: .relaxed) {
                guard poll(&poller, 1, 50) > 0 else { continue }
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { continue }
                // Not inherited by a child spawned meanwhile (the built binary), which would hold it open.
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                handle(connection)
            }
            state.finished.signal()
        }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting connections and closes the listener; connections already handed out are theirs.
    public func stop() {
        guard !state.stopping.exchange(true, ordering: .relaxed) else { return }
        state.finished.wait()
        close(state.descriptor)
    }
}
