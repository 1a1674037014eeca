import Foundation
import Glibc
import Synchronization
import TestSupport

/// A loopback TCP server that reads each request and answers it with the same raw bytes, then closes
/// the connection (or resets it): for the broken responses `HTTPServer` is too correct to send.
///
/// Threading: one accept thread handles connections one after another; `stop()` must be called (it
/// waits for that thread), typically in a `defer`.
final class RawReplyServer: Sendable {
    enum Ending: Sendable {
        /// FIN after the bytes.
        case close
        /// SO_LINGER 0: the client sees ECONNRESET.
        case reset
    }

    let port: UInt16
    private let listener: Int32
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    init(reply: String, ending: Ending = .close) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        port = try LoopbackSocket.bind(listener, listenBacklog: 16)
        let bytes = Array(reply.utf8)
        let thread = Thread { [self] in
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            while !stopping.load(ordering: .relaxed) {
                guard poll(&poller, 1, 50) > 0 else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                LoopbackSocket.readRequest(connection, timeout: 5)
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if ending == .reset {
                    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                    setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                }
                close(connection)
            }
            finished.signal()
        }
        thread.start()
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
        close(listener)
    }

    /// A loopback port nothing listens on: bound (so no one else takes it) but not listening, so a
    /// connection attempt is refused. Close the returned descriptor when done.
    static func refusingPort() throws -> (port: UInt16, descriptor: Int32) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        return (try LoopbackSocket.bind(descriptor, listenBacklog: nil), descriptor)
    }
}
