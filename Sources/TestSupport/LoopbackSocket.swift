import Foundation
import Glibc

/// The socket chores of every raw loopback server and client in the tests (those that send or expect
/// what `HTTPServer` is too correct to send, or need the bytes on the wire exactly): a socket bound to
/// 127.0.0.1, a free port, a connection, and reading one whole request before answering it. The
/// accept loop is `LoopbackListener`'s.
public enum LoopbackSocket {
    /// A new TCP socket (close-on-exec, so a child spawned meanwhile does not hold it open) bound to a
    /// free loopback port, listening with `backlog` when given, else bound only, so that connecting is
    /// refused. The caller closes `descriptor`.
    public static func open(listenBacklog backlog: Int32?) throws(POSIXError) -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && (backlog.map { listen(descriptor, $0) == 0 } ?? true)
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            close(descriptor)
            throw error
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// A loopback port nobody listens on right now (bound, read back, released), for a process of the
    /// test's to listen on.
    public static func freePort() throws -> UInt16 {
        let (descriptor, port) = try open(listenBacklog: nil)
        close(descriptor)
        return port
    }

    /// A new socket connected to 127.0.0.1:`port`, its reads limited to `receiveTimeout` when given.
    /// The caller closes it. - Throws: `POSIXError` when the connection is refused or fails.
    public static func connect(
        port: UInt16, receiveTimeout: Duration? = nil, noDelay: Bool = false
    ) throws(POSIXError) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if let receiveTimeout {
            var limit = timeval(tv_sec: Int(receiveTimeout.components.seconds), tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        if noDelay {
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Polls, every 100 ms for up to a minute, until something accepts connections on `port` (a
    /// process of the test's that builds its world first). - Returns: false when nothing did.
    public static func waitUntilListening(port: UInt16) -> Bool {
        for _ in 0..<600 {
            if let descriptor = try? connect(port: port) {
                close(descriptor)
                return true
            }
            usleep(100_000)
        }
        return false
    }

    /// Reads a request's head and its `Content-Length` body, so that an answer goes out after the
    /// whole request. - Returns: false when the client left (or sent nothing for `timeout` seconds) first.
    @discardableResult
    public static func readRequest(_ connection: Int32, timeout: Int = 10) -> Bool {
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += chunk[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<headEnd.lowerBound].lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count >= text.utf8.distance(from: text.startIndex, to: headEnd.upperBound) + length {
                return true
            }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
