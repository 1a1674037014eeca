import Foundation

/// One `GET` to a server on 127.0.0.1 over a plain socket, for the simulator's `/stats`: the bench
/// needs nothing more, and keeping URLSession out of it keeps its own footprint out of the picture.
enum LoopbackHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The body of `GET path` on `127.0.0.1:port`; throws unless the answer is 200.
    static func get(port: UInt16, path: String, timeoutSeconds: Int = 30) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            throw Failure(description: "cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                response.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw Failure(
                    description: "no answer from 127.0.0.1:\(port)\(path): \(String(cString: strerror(errno)))")
            }
        }
        guard let split = response.firstRange(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "incomplete answer from 127.0.0.1:\(port)\(path)")
        }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        guard statusLine.split(separator: " ").dropFirst().first == "200" else {
            throw Failure(description: "127.0.0.1:\(port)\(path) answered '\(statusLine)'")
        }
        return Data(response[split.upperBound...])
    }
}
