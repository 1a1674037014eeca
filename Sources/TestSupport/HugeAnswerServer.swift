import Foundation
import Glibc
import Synchronization

/// A loopback verifyReceipt whose every answer is a valid JSON body of `size` bytes, written as it is
/// generated and never held in memory: the stand-in for an endpoint that sends answers far larger than
/// any receipt needs, for the job's answer limit (`--max-answer-bytes`).
///
/// The body is `{"status":0,…,"latest_receipt":"AAAA…"}`: an answer read whole would pass for a valid
/// receipt with no purchases, so a client that decoded it would revoke what the user bought.
///
/// Threading: one accept thread, and one thread per connection while it streams; a connection ends
/// when the body is out or the client hangs up. `stop()` (also run on deinit) stops accepting; answers
/// being streamed end when their client hangs up.
public final class HugeAnswerServer: Sendable {
    /// How an answer says where its body ends.
    public enum Framing: Sendable {
        /// `Content-Length: size`, which a client can refuse before reading the body.
        case contentLength
        /// `Transfer-Encoding: chunked`: the size is known only by counting.
        case chunked
    }

    public var port: UInt16 { listener.port }
    private let listener: LoopbackListener
    private let counts: Counts

    /// What the connection threads share with the server, so that they never keep the server alive.
    private final class Counts: Sendable {
        let value = Mutex((requests: 0, bodyBytes: 0))
    }

    /// Starts the server on a free loopback port.
    /// - Parameters:
    ///   - size: the body's size, bytes.
    ///   - framings: the framing of each request's answer in turn, repeated.
    public init(size: Int = 256 << 20, framings: [Framing] = [.contentLength, .chunked]) throws {
        precondition(size >= Self.prefix.count + Self.suffix.count, "an answer holds at least its JSON envelope")
        let counts = Counts()
        self.counts = counts
        listener = try LoopbackListener(backlog: 128) { connection in
            let number = counts.value.withLock { counts in
                counts.requests += 1
                return counts.requests - 1
            }
            let framing = framings[number % framings.count]
            Thread.detachNewThread {
                if LoopbackSocket.readRequest(connection) {
                    Self.answer(connection, size: size, framing: framing, counts: counts)
                }
                close(connection)
            }
        }
    }

    deinit { stop() }

    /// Stops accepting connections; safe to call more than once.
    public func stop() { listener.stop() }

    public var productionURL: URL { URL(string: "http://127.0.0.1:\(port)/production/verifyReceipt")! }
    public var sandboxURL: URL { URL(string: "http://127.0.0.1:\(port)/sandbox/verifyReceipt")! }

    /// The environment for the built binary: this server as both endpoints.
    public var environment: [String: String] {
        [
            "APPLE_VERIFY_URL_PRODUCTION": productionURL.absoluteString,
            "APPLE_VERIFY_URL_SANDBOX": sandboxURL.absoluteString,
        ]
    }

    /// Connections accepted so far (one request each).
    public var requests: Int { counts.value.withLock { $0.requests } }
    /// Body bytes the kernel took from this server so far, over every answer: what clients read, plus
    /// what sat in socket buffers when they hung up.
    public var bodyBytesSent: Int { counts.value.withLock { $0.bodyBytes } }

    private static let prefix = Array(
        #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example.app","in_app":[]},"latest_receipt":""#
            .utf8)
    private static let suffix = Array(#""}"#.utf8)
    private static let filler = [UInt8](repeating: UInt8(ascii: "A"), count: 64 << 10)

    /// Streams one answer of `size` body bytes; returns early when the client hangs up.
    private static func answer(_ connection: Int32, size: Int, framing: Framing, counts: Counts) {
        let framingHeader = framing == .contentLength ? "Content-Length: \(size)" : "Transfer-Encoding: chunked"
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(framingHeader)\r\nConnection: close\r\n\r\n"
        guard write(Array(head.utf8)[...], to: connection) else { return }
        var remaining = size
        while remaining > 0 {
            let bytes: ArraySlice<UInt8>
            if remaining == size {
                bytes = prefix[...]
            } else if remaining == suffix.count {
                bytes = suffix[...]
            } else {
                bytes = filler[..<min(filler.count, remaining - suffix.count)]
            }
            if framing == .chunked {
                guard write(Array((String(bytes.count, radix: 16) + "\r\n").utf8)[...], to: connection) else { return }
            }
            guard write(bytes, to: connection), framing == .contentLength || write(crlf, to: connection) else { return }
            counts.value.withLock { $0.bodyBytes += bytes.count }
            remaining -= bytes.count
        }
        if framing == .chunked { _ = write(Array("0\r\n\r\n".utf8)[...], to: connection) }
    }

    private static let crlf = Array("\r\n".utf8)[...]

    /// Writes all of `bytes`; false once the client has gone (EPIPE, ECONNRESET), never SIGPIPE.
    private static func write(_ bytes: ArraySlice<UInt8>, to connection: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
