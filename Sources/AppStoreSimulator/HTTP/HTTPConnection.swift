import Glibc
import Synchronization

/// Serves one accepted connection until it closes: read a request, call the handler, apply the delay
/// and action, write the response, repeat.
///
/// Threading: created and run on the connection's own thread and never shared, hence not `Sendable`.
/// The descriptor is closed only by `HTTPServer.connectionClosed`, called once when `run()` ends.
final class HTTPConnection {
    private let server: HTTPServer
    private let fd: Int32
    private let id: Int
    private let remoteAddress: String
    /// Fired when the server stops accepting: idle connections close, in-flight requests finish.
    private let stopPipe: WakePipe
    /// Fired when the grace period is over: every wait ends.
    private let abortPipe: WakePipe

    /// Received bytes; those before `start` are consumed. Pipelined requests wait here in order.
    private var buffer: [UInt8] = []
    private var start = 0
    private var requestIndex = 0
    /// When the kernel received the last bytes read: a request is complete, and has arrived, then.
    private var lastArrival = ContinuousClock.now
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    /// How long, at most, a closing connection keeps reading (and discarding) what the client still sends.
    private static let drainLimit = Duration.seconds(1)

    private enum ReadResult { case data, closed, timedOut, woken }

    init(server: HTTPServer, fd: Int32, id: Int, remoteAddress: String, stopPipe: WakePipe, abortPipe: WakePipe) {
        self.server = server
        self.fd = fd
        self.id = id
        self.remoteAddress = remoteAddress
        self.stopPipe = stopPipe
        self.abortPipe = abortPipe
    }

    deinit {
        chunk.deallocate()
    }

    func run() {
        defer { server.connectionClosed(id: id, fd: fd) }
        while true {
            skipEmptyLines()
            if start == buffer.count {
                // Idle between requests: a stopping server closes here, as does a quiet client.
                if stopPipe.isFired { return }
                let idleDeadline = ContinuousClock.now + server.configuration.idleTimeout
                guard receive(until: idleDeadline, wake: stopPipe) == .data else { return }
                continue
            }
            guard serveRequest() else { return }
        }
    }

    /// Serves the request starting at `start`; returns whether the connection stays open.
    private func serveRequest() -> Bool {
        let deadline = ContinuousClock.now + server.configuration.requestTimeout
        var scanFrom = start
        var headEnd = 0
        while true {
            do throws(HTTPParseError) {
                if let end = try HTTPRequestParser.headEnd(in: buffer, start: start, scanFrom: &scanFrom) {
                    headEnd = end
                    break
                }
            } catch {
                return reject(error)
            }
            switch receive(until: deadline, wake: abortPipe) {
            case .data: continue
            case .timedOut: return timedOut()
            case .closed, .woken: return false
            }
        }

        let head: HTTPRequestHead
        do throws(HTTPParseError) {
            head = try HTTPRequestParser.parseHead(buffer[start..<headEnd])
        } catch {
            return reject(error)
        }
        guard head.contentLength <= server.maxBodyBytes else {
            return reject(HTTPParseError(413, "body of \(head.contentLength) bytes exceeds \(server.maxBodyBytes)"))
        }
        let bodyEnd = headEnd + head.contentLength
        if head.expectsContinue && buffer.count < bodyEnd {
            guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return false }
        }
        while buffer.count < bodyEnd {
            switch receive(until: deadline, wake: abortPipe) {
            case .data: continue
            case .timedOut: return timedOut()
            case .closed, .woken: return false
            }
        }

        let request = HTTPRequest(
            method: head.method,
            target: head.target,
            version: head.version,
            headers: head.headers,
            body: Array(buffer[headEnd..<bodyEnd]),
            remoteAddress: remoteAddress,
            connectionID: id,
            requestIndex: requestIndex
        )
        consume(upTo: bodyEnd)
        requestIndex += 1
        return respond(to: request, head: head)
    }

    private func respond(to request: HTTPRequest, head: HTTPRequestHead) -> Bool {
        guard let response = produceResponse(to: request) else { return false }
        switch response.action {
        case .respond:
            break
        case .resetConnection:
            Socket.setResetOnClose(fd)
            server.counters.connectionsReset.add(1, ordering: .relaxed)
            return false
        case .closeWithoutResponse:
            server.counters.connectionsClosedWithoutResponse.add(1, ordering: .relaxed)
            shutdown(fd, Int32(SHUT_WR))
            return false
        }

        // Checked after the handler: a request that was in flight when the server began stopping still
        // gets its answer, and learns that the connection will not be reused.
        let keepAlive = head.keepAlive && !response.asksToClose && !stopPipe.isFired
        let bytes = response.serialized(keepAlive: keepAlive, omitBody: head.method == "HEAD", date: server.date.now())
        server.counters.responseSent(status: (100...999).contains(response.status) ? response.status : 500)
        guard write(bytes) else { return false }
        if !keepAlive { drainAndClose() }
        return keepAlive
    }

    /// Calls the handler and waits out the response's delay; `nil` if a forced stop cut the delay.
    /// The request counts as in flight for exactly this long.
    ///
    /// The delay counts from the request's arrival (the kernel's, `Socket.receive`), the handler's own
    /// time included: a simulated latency of L ms is what a client sees, however busy the machine running
    /// both is, and however late this thread was woken to read the request.
    private func produceResponse(to request: HTTPRequest) -> HTTPResponse? {
        let arrived = lastArrival
        server.counters.requestStarted()
        defer { server.counters.requestFinished() }
        var response: HTTPResponse
        do {
            response = try server.handler.handle(request)
        } catch {
            response = .error(500)
        }
        if let delay = response.delay, case let remaining = delay - (ContinuousClock.now - arrived), remaining > .zero {
            // Only a forced stop cuts a delay; a graceful stop lets it run within the grace period.
            guard Socket.sleep(remaining, wake: abortPipe.readFD) else { return nil }
        }
        return response
    }

    /// Answers a request the server refuses (malformed, too large, …) and closes the connection: after a
    /// framing error the rest of the byte stream cannot be trusted.
    private func reject(_ error: HTTPParseError) -> Bool {
        let response = HTTPResponse.error(error.status, error.reason)
        server.counters.responseSent(status: error.status)
        if write(response.serialized(keepAlive: false, omitBody: false, date: server.date.now())) {
            drainAndClose()
        }
        return false
    }

    private func timedOut() -> Bool {
        server.counters.requestTimeouts.add(1, ordering: .relaxed)
        return reject(HTTPParseError(408, "request not received within the timeout"))
    }

    /// Half-closes, then discards what the client still sends (until it closes, or `drainLimit`).
    ///
    /// Closing a socket with unread input makes the kernel send RST, and a client that gets RST while it
    /// is still uploading may lose the response sitting in its receive buffer. Draining lets it read the
    /// 413/400 (or a `Connection: close` answer) first.
    private func drainAndClose() {
        shutdown(fd, Int32(SHUT_WR))
        buffer = []
        start = 0
        let deadline = ContinuousClock.now + Self.drainLimit
        while receive(until: deadline, wake: abortPipe, keep: false) == .data {}
    }

    /// Waits for bytes (until `deadline` or `wake` fires) and appends them to the buffer unless `keep` is false.
    private func receive(until deadline: ContinuousClock.Instant, wake: WakePipe, keep: Bool = true) -> ReadResult {
        switch Socket.waitReadable(fd, wake: wake.readFD, timeout: ContinuousClock.now.duration(to: deadline)) {
        case .woken: return .woken
        case .timedOut: return .timedOut
        case .readable: break
        }
        while true {
            let (count, arrived) = Socket.receive(fd, into: chunk)
            if count > 0 {
                lastArrival = arrived
                server.counters.bytesReceived.add(count, ordering: .relaxed)
                if keep { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count])) }
                return .data
            }
            if count < 0 && errno == EINTR { continue }
            return .closed  // 0 = orderly EOF; errors (ECONNRESET, …) end the connection the same way
        }
    }

    /// Counts, then writes: counters are updated before the client can see the bytes, so a client that has
    /// read a response finds it in the stats (a write that then fails is counted all the same).
    private func write(_ bytes: [UInt8]) -> Bool {
        server.counters.bytesSent.add(bytes.count, ordering: .relaxed)
        return bytes.withUnsafeBytes { Socket.sendAll(fd, $0) }
    }

    /// Drops the bytes of a served request, keeping any pipelined ones after it.
    private func consume(upTo end: Int) {
        start = end
        if start == buffer.count {
            // Release a large body's storage; keep a small buffer's capacity for the next request.
            if buffer.capacity > 256 * 1024 {
                buffer = []
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
            start = 0
        } else if start >= 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// RFC 9112 §2.2: a server should ignore empty lines before a request line (some clients send an
    /// extra CRLF after a body).
    private func skipEmptyLines() {
        while start + 1 < buffer.count && buffer[start] == 0x0D && buffer[start + 1] == 0x0A {
            start += 2
        }
        if start == buffer.count {
            consume(upTo: start)
        }
    }
}
