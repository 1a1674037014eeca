import Foundation
import Glibc

/// The socket chores of the tests' raw loopback servers (those that send what `HTTPServer` is too
/// correct to send): binding to 127.0.0.1, and reading one whole request before answering it.
public enum LoopbackSocket {
    /// Binds `descriptor` to a free loopback port, listening with `backlog` when given (else bound
    /// only, so that connecting is refused). - Returns: the port.
    public static func bind(_ descriptor: Int32, listenBacklog backlog: Int32?) throws -> UInt16 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                Glibc.bind(descriptor, pointer, length) == 0 && (backlog.map { listen(descriptor, $0) == 0 } ?? true)
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return UInt16(bigEndian: address.sin_port)
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
}
