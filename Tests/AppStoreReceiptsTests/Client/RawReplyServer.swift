import Foundation
import Glibc
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

    var port: UInt16 { listener.port }
    private let listener: LoopbackListener

    init(reply: String, ending: Ending = .close) throws {
        let bytes = Array(reply.utf8)
        listener = try LoopbackListener(backlog: 16) { connection in
            LoopbackSocket.readRequest(connection, timeout: 5)
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if ending == .reset {
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            }
            close(connection)
        }
    }

    func stop() { listener.stop() }

    /// A loopback port nothing listens on: bound (so no one else takes it) but not listening, so a
    /// connection attempt is refused. Close the returned descriptor when done.
    static func refusingPort() throws -> (port: UInt16, descriptor: Int32) {
        let (descriptor, port) = try LoopbackSocket.open(listenBacklog: nil)
        return (port, descriptor)
    }
}
