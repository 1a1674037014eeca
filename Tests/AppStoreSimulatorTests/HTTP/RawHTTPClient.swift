import Foundation
import Glibc
import TestSupport

@testable import AppStoreSimulator

/// A response as a raw-socket client reads it.
struct RawResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum RawClientError: Error, Equatable {
    case connect(Int32)
    case send(Int32)
    /// The server closed the connection (EOF) before a complete response.
    case closed
    /// The connection was reset (ECONNRESET).
    case reset
    case timedOut
    case malformed(String)
}

/// A blocking HTTP/1.1 client on a raw socket, for exact control of the bytes on the wire.
///
/// Threading: one instance per thread; use it from `TestThreads`, never from a pool thread. Every read
/// has a receive timeout, so a broken server fails the test instead of hanging it.
final class RawHTTPClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeout: Duration = .seconds(5)) throws {
        do {
            fd = try LoopbackSocket.connect(port: port, receiveTimeout: timeout, noDelay: true)
        } catch {
            throw RawClientError.connect(error.code.rawValue)
        }
    }

    deinit {
        close(fd)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw RawClientError.send(errno) }
            offset += sent
        }
    }

    /// Sends a GET with the headers a well-behaved client sends.
    func get(_ path: String, headers: String = "") throws {
        try send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n")
    }

    /// Sends a POST with `body` and its Content-Length.
    func post(_ path: String, body: String, headers: String = "") throws {
        try send(
            "POST \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)")
    }

    /// Reads one response; `bodyless` for answers to HEAD, whose Content-Length describes no body.
    func readResponse(bodyless: Bool = false) throws -> RawResponse {
        let headEnd: Int
        while true {
            if let found = find([0x0D, 0x0A, 0x0D, 0x0A]) {
                headEnd = found
                break
            }
            try fill()
        }
        let lines = String(decoding: buffer[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else {
            throw RawClientError.malformed(lines[0])
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw RawClientError.malformed(line) }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        buffer.removeFirst(headEnd + 4)
        let length = bodyless || status < 200 || status == 204 ? 0 : Int(headers["Content-Length"] ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// Reads until the server closes (EOF) and returns whatever it sent first; throws on reset or timeout.
    func readUntilClosed() throws -> [UInt8] {
        while true {
            do {
                try fill()
            } catch RawClientError.closed {
                let rest = buffer
                buffer = []
                return rest
            }
        }
    }

    private var chunk = [UInt8](repeating: 0, count: 65536)

    private func fill() throws {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[..<count])
            return
        }
        if count == 0 { throw RawClientError.closed }
        switch errno {
        case ECONNRESET: throw RawClientError.reset
        case EAGAIN: throw RawClientError.timedOut
        case let code: throw RawClientError.malformed("recv errno \(code)")
        }
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] {
            if buffer[i..<(i + pattern.count)].elementsEqual(pattern) { return i }
        }
        return nil
    }
}
