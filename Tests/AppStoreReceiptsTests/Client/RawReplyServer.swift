import Foundation
import Glibc
import Synchronization

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
        port = try Self.bindLoopback(listener, listen: true)
        let bytes = Array(reply.utf8)
        let thread = Thread { [self] in
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            while !stopping.load(ordering: .relaxed) {
                guard poll(&poller, 1, 50) > 0 else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                Self.readRequest(connection)
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
        return (try bindLoopback(descriptor, listen: false), descriptor)
    }

    private static func bindLoopback(_ descriptor: Int32, listen shouldListen: Bool) throws -> UInt16 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && (!shouldListen || listen(descriptor, 16) == 0)
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Reads the head and a `Content-Length` body, so the reply is sent after the whole request.
    private static func readRequest(_ connection: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += chunk[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<headEnd.lowerBound].lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count >= text.utf8.distance(from: text.startIndex, to: headEnd.upperBound) + length { return }
        }
    }
}
