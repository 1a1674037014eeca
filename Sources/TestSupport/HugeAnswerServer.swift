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

    public let port: UInt16
    private let state: State

    /// What the server's threads share with it, so that they never keep the server itself alive.
    private final class State: Sendable {
        let listener: Int32
        let stopping = Atomic(false)
        let finished = DispatchSemaphore(value: 0)
        let counts = Mutex((requests: 0, bodyBytes: 0))

        init(listener: Int32) { self.listener = listener }
    }

    /// Starts the server on a free loopback port.
    /// - Parameters:
    ///   - size: the body's size, bytes.
    ///   - framings: the framing of each request's answer in turn, repeated.
    public init(size: Int = 256 << 20, framings: [Framing] = [.contentLength, .chunked]) throws {
        precondition(size >= Self.prefix.count + Self.suffix.count, "an answer holds at least its JSON envelope")
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        do {
            port = try LoopbackSocket.bind(listener, listenBacklog: 128)
        } catch {
            close(listener)
            throw error
        }
        let state = State(listener: listener)
        self.state = state
        let thread = Thread {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            while !state.stopping.load(ordering: .relaxed) {
                guard poll(&poller, 1, 50) > 0 else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                // Not inherited by a child spawned meanwhile (the built binary), which would hold it open.
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                let number = state.counts.withLock { counts in
                    counts.requests += 1
                    return counts.requests - 1
                }
                let framing = framings[number % framings.count]
                Thread.detachNewThread {
                    if LoopbackSocket.readRequest(connection) {
                        Self.answer(connection, size: size, framing: framing, state: state)
                    }
                    close(connection)
                }
            }
            state.finished.signal()
        }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting connections; safe to call more than once.
    public func stop() {
        guard !state.stopping.exchange(true, ordering: .relaxed) else { return }
        state.finished.wait()
        close(state.listener)
    }

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
    public var requests: Int { state.counts.withLock { $0.requests } }
    /// Body bytes the kernel took from this server so far, over every answer: what clients read, plus
    /// what sat in socket buffers when they hung up.
    public var bodyBytesSent: Int { state.counts.withLock { $0.bodyBytes } }

    private static let prefix = Array(
        #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example.app","in_app":[]},"latest_receipt":""#
            .utf8)
    private static let suffix = Array(#""}"#.utf8)
    private static let filler = [UInt8](repeating: UInt8(ascii: "A"), count: 64 << 10)

    /// Streams one answer of `size` body bytes; returns early when the client hangs up.
    private static func answer(_ connection: Int32, size: Int, framing: Framing, state: State) {
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
            state.counts.withLock { $0.bodyBytes += bytes.count }
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
