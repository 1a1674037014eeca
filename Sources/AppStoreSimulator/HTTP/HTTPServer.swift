import Dispatch
import Foundation
import Glibc
import Synchronization

/// A small HTTP/1.1 server on BSD sockets, the bottom layer of the App Store simulator.
///
/// ## Design: one thread per connection
/// An accept thread `poll`s the listening socket; each accepted connection gets its own `Thread`
/// (not a Dispatch queue: Linux gives the global pool about one thread per core, DESIGN trap 1), which
/// reads requests with blocking `recv`, calls the handler and writes the response, in order, until the
/// connection closes. Why threads and not an event loop:
/// - Handlers may block (the simulator's world lookups, injected latency), and a thread per connection
///   gives every in-flight request its own thread with no pool to size. Clients cap their own in-flight
///   requests (64–256), so the thread count is bounded by the client, and by `maxConnections`.
/// - A thread blocked in `recv` or `poll` costs a stack reservation and no CPU; hundreds of them are
///   fine on a small machine, and a request never hops between threads (its throughput is in
///   docs/benchmarks.md, far above what the job asks of it).
/// - `epoll` is not visible through Swift's Glibc module, and adding a C target for it was not worth it.
///
/// `HTTPResponse.delay` waits on the connection's own thread before writing, so it holds no extra thread
/// and the handler has already returned; a stopping server cuts it short at the end of the grace period.
///
/// ## Protocol
/// HTTP/1.1 with keep-alive and pipelining (requests on one connection are answered in order);
/// `Connection: close` and HTTP/1.0 without `keep-alive` close after the response. Bodies need
/// `Content-Length`; `Transfer-Encoding` (chunked) is refused with 411. See `HTTPRequestParser` for the
/// strict parsing rules and their status codes (400, 411, 417, 431, 505). A body over `maxBodyBytes` is
/// answered 413 from its head alone (also to `Expect: 100-continue`), then the connection is closed after
/// briefly draining what the client still sends, so it reads the 413 instead of a reset.
/// Every response carries `Content-Length`, `Date` and `Connection`.
///
/// ## Timeouts
/// An idle keep-alive connection is closed silently after `idleTimeout`. A request whose head and body do
/// not arrive within `requestTimeout` of its first byte is answered 408 and closed. A response the client
/// does not read within `writeTimeout` closes the connection.
///
/// ## Threading contract
/// All methods may be called from any thread. `start()` binds synchronously (so `port` is valid when it
/// returns) and is one-shot. `stop()` blocks until the server has stopped: it must not be called from a
/// handler (that request would wait for itself until the grace period ends); use `beginStop()` there.
/// Writes use `MSG_NOSIGNAL`, so a vanished client never raises SIGPIPE.
public final class HTTPServer: Sendable {
    /// Limits and timeouts beyond the ones in `init`.
    public struct Configuration: Sendable {
        /// How long a keep-alive connection may sit idle between requests before it is closed silently.
        public var idleTimeout: Duration
        /// How long a request may take to arrive in full, from its first byte; then 408 and close.
        public var requestTimeout: Duration
        /// How long one write may wait for the client to read; then the connection is dropped.
        public var writeTimeout: Duration
        /// How long `stop()` lets in-flight requests (and their delays) finish before cutting connections.
        public var stopGracePeriod: Duration
        /// Connections open at once; beyond it the server stops accepting until one closes.
        public var maxConnections: Int
        /// The kernel's queue of not-yet-accepted connections.
        public var backlog: Int32

        public init(
            idleTimeout: Duration = .seconds(60),
            requestTimeout: Duration = .seconds(10),
            writeTimeout: Duration = .seconds(10),
            stopGracePeriod: Duration = .seconds(2),
            maxConnections: Int = 1024,
            backlog: Int32 = 1024
        ) {
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.writeTimeout = writeTimeout
            self.stopGracePeriod = stopGracePeriod
            self.maxConnections = maxConnections
            self.backlog = backlog
        }
    }

    public let host: String
    public let maxBodyBytes: Int
    public let configuration: Configuration
    let handler: any HTTPHandler
    let counters = HTTPServerCounters()
    let date = HTTPDate()

    enum Phase { case idle, running, stopping, stopped }

    struct State {
        var phase = Phase.idle
        var port: UInt16
        var listenFD: Int32 = -1
        var stopPipe: WakePipe?
        var abortPipe: WakePipe?
        /// Open connections by id, so a forced stop can `shutdown` them. A connection's thread removes its
        /// entry under this lock before closing the descriptor, so the descriptor is never reused under us.
        var connections: [Int: Int32] = [:]
        var nextConnectionID = 1
        /// Kept alive here; cancelled when the server stops.
        var signalSources: [DispatchSource] = []
    }

    let state: Mutex<State>
    /// The accept thread and every connection thread.
    private let threads = DispatchGroup()
    /// Entered by `start()`, left when stopping completes; `waitUntilStopped()` waits on it.
    private let lifetime = DispatchGroup()

    /// Creates a server; nothing is bound until `start()`.
    ///
    /// - Parameters:
    ///   - host: the address to listen on; loopback by default (the simulator is not for other machines).
    ///   - port: the port to listen on; 0 picks a free one, readable from `port` after `start()`.
    ///   - maxBodyBytes: larger request bodies are refused with 413 before they are read.
    ///   - handler: called once per request; see `HTTPHandler` for its threading contract.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        maxBodyBytes: Int = 1 << 20,
        configuration: Configuration = Configuration(),
        handler: any HTTPHandler
    ) {
        self.host = host
        self.maxBodyBytes = maxBodyBytes
        self.configuration = configuration
        self.handler = handler
        state = Mutex(State(port: port))
    }

    /// Creates a server around a handler closure.
    public convenience init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        maxBodyBytes: Int = 1 << 20,
        configuration: Configuration = Configuration(),
        handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) {
        self.init(
            host: host, port: port, maxBodyBytes: maxBodyBytes, configuration: configuration,
            handler: HTTPHandlerClosure(handler)
        )
    }

    /// The port the server listens on once started (the requested one before).
    public var port: UInt16 { state.withLock { $0.port } }

    /// `host:port` for URLs, IPv6 hosts in brackets, e.g. `127.0.0.1:54321`.
    public var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether the server accepts connections (started and not stopping).
    public var isRunning: Bool { state.withLock { $0.phase == .running } }

    /// What the server has done so far.
    public var stats: HTTPServerStats { counters.snapshot() }

    /// Binds and starts accepting connections on a background thread.
    ///
    /// - Throws: `HTTPServerError.alreadyStarted` if called twice; `.invalidAddress` or `.system` if the
    ///   address does not resolve or cannot be bound (e.g. the port is in use).
    public func start() throws(HTTPServerError) {
        let requestedPort = try state.withLock { state throws(HTTPServerError) -> UInt16 in
            guard state.phase == .idle else { throw .alreadyStarted }
            state.phase = .running  // claims the start; reverted below if binding fails
            return state.port
        }
        let listener: (fd: Int32, port: UInt16)
        let stopPipe: WakePipe
        let abortPipe: WakePipe
        do throws(HTTPServerError) {
            stopPipe = try WakePipe()
            abortPipe = try WakePipe()
            listener = try Socket.listen(host: host, port: requestedPort, backlog: configuration.backlog)
        } catch {
            state.withLock { $0.phase = .idle }
            throw error
        }
        state.withLock {
            $0.listenFD = listener.fd
            $0.port = listener.port
            $0.stopPipe = stopPipe
            $0.abortPipe = abortPipe
        }
        lifetime.enter()
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(listener: listener.fd, stopPipe: stopPipe, abortPipe: abortPipe)
        }
        thread.name = "receipt-recon.http.accept"
        thread.start()
    }

    /// Stops gracefully and returns once stopped: stops accepting at once, closes idle keep-alive
    /// connections, lets in-flight requests finish (answered with `Connection: close`) for up to
    /// `stopGracePeriod`, then cuts whatever is left. Calling it again, or on a server never started,
    /// returns when the server is stopped.
    public func stop() {
        beginStop()
        waitUntilStopped()
    }

    /// Starts a graceful stop (see `stop()`) and returns immediately; safe from a handler or signal handler.
    public func beginStop() {
        let pipes: (stop: WakePipe, abort: WakePipe)? = state.withLock { state in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                return nil
            case .running:
                state.phase = .stopping
                guard let stop = state.stopPipe, let abort = state.abortPipe else { return nil }
                return (stop, abort)
            case .stopping, .stopped:
                return nil
            }
        }
        guard let pipes else { return }
        pipes.stop.fire()
        let finisher = Thread { [self] in finishStop(abortPipe: pipes.abort) }
        finisher.name = "receipt-recon.http.stop"
        finisher.start()
    }

    /// Blocks the calling thread until the server has stopped (returns at once if it never started).
    /// For `simulator serve`: start, install `stopOnSignals()`, then wait here on the main thread.
    public func waitUntilStopped() {
        lifetime.wait()
    }

    private func finishStop(abortPipe: WakePipe) {
        if threads.wait(timeout: .now() + configuration.stopGracePeriod.dispatchInterval) == .timedOut {
            // Grace period over: wake delayed responses and make blocked reads and writes fail. A handler
            // blocked in its own code cannot be interrupted; its thread exits when the handler returns.
            abortPipe.fire()
            state.withLock { state in
                for fd in state.connections.values { shutdown(fd, Int32(SHUT_RDWR)) }
            }
            _ = threads.wait(timeout: .now() + .milliseconds(500))
        }
        let sources = state.withLock { state in
            state.phase = .stopped
            defer { state.signalSources = [] }
            return state.signalSources
        }
        for source in sources { source.cancel() }
        lifetime.leave()
    }

    // MARK: - Accepting

    private func acceptLoop(listener: Int32, stopPipe: WakePipe, abortPipe: WakePipe) {
        defer {
            close(listener)
            threads.leave()
        }
        while true {
            if state.withLock({ $0.connections.count }) >= configuration.maxConnections {
                // Leave further clients in the backlog until a connection closes.
                guard Socket.sleep(.milliseconds(5), wake: stopPipe.readFD) else { return }
                continue
            }
            switch Socket.waitReadable(listener, wake: stopPipe.readFD, timeout: nil) {
            case .woken: return
            case .readable, .timedOut: break
            }
            guard let (fd, remote) = Socket.accept(listener) else {
                switch errno {
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory: back off instead of spinning on the same error.
                    guard Socket.sleep(.milliseconds(10), wake: stopPipe.readFD) else { return }
                default:
                    break  // EAGAIN (another wakeup took it), ECONNABORTED, EINTR: just poll again
                }
                continue
            }
            Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)  // responses go out in one write; don't hold them
            Socket.setSendTimeout(fd, configuration.writeTimeout)
            Socket.stampArrivals(fd)
            let id: Int? = state.withLock { state in
                guard state.phase == .running else { return nil }
                let id = state.nextConnectionID
                state.nextConnectionID += 1
                state.connections[id] = fd
                return id
            }
            guard let id else {
                close(fd)
                return
            }
            counters.connectionsAccepted.add(1, ordering: .relaxed)
            counters.connectionsOpen.add(1, ordering: .relaxed)
            threads.enter()
            let thread = Thread { [self] in
                HTTPConnection(
                    server: self, fd: fd, id: id, remoteAddress: remote, stopPipe: stopPipe, abortPipe: abortPipe
                ).run()
            }
            // Handlers encode JSON and build receipts, nothing deep; 1 MB is ample and keeps 1,000
            // connection threads' reservations modest.
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Called by a connection's thread as it ends: forgets the connection, then closes its descriptor.
    func connectionClosed(id: Int, fd: Int32) {
        state.withLock { _ = $0.connections.removeValue(forKey: id) }
        counters.connectionsOpen.subtract(1, ordering: .relaxed)  // before the client can see the close
        close(fd)
        threads.leave()
    }
}

extension Duration {
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        guard seconds < 1_000_000_000 else { return .never }
        return .nanoseconds(Int(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)))
    }
}
