import AppStoreReceipts
import AppStoreSimulator
import ChildProcess
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// What only the libcurl transport has to prove: failures map to the right transport failure, quickly
/// and without leaking the request; connections and handles are reused; one thread, and none left after.
@Suite struct CurlMultiTransportTests {
    static let body = Data(#"{"receipt-data":"MIIBcjCCAW4GCSqGSIb3DQEHAqCCAV8w","password":"s3cr3t-shared"}"#.utf8)
    static let headers = ["Content-Type": "application/json"]

    @Test func aRefusedConnectionFailsAtOnceAsConnectionFailed() throws {
        let (port, descriptor) = try RawReplyServer.refusingPort()
        defer { close(descriptor) }
        let transport = CurlMultiTransport(maxConnectionsPerHost: 4, timeout: .seconds(10))
        // A transport that waited for its timeout would report `.timedOut`: "connection refused" is the
        // proof it failed at once.
        let result = transport.postNow(
            URL(string: "http://127.0.0.1:\(port)/verifyReceipt")!, body: Self.body,
            headers: Self.headers, timeout: .seconds(10))
        guard case .failed(let failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure == .connectionFailed(detail: "connection refused"))
    }

    @Test func anUnresolvableHostIsConnectionFailed() {
        let transport = CurlMultiTransport(maxConnectionsPerHost: 4, timeout: .seconds(5))
        let result = transport.postNow(
            URL(string: "http://no-such-host.invalid/verifyReceipt")!, body: Self.body,
            headers: Self.headers, timeout: .seconds(5))
        guard case .failed(let failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure == .connectionFailed(detail: "host not found"))
    }

    /// Headers promise 100 bytes, 11 arrive, then the server closes: a failure, never a short body
    /// handed to the decoder as if it were the answer.
    @Test(
        arguments: [
            (
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"status\":0",
                RawReplyServer.Ending.close,
                "connection closed mid-response"
            ),
            ("", .close, "connection closed without a response"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"status\":0", .reset, "connection reset"),
        ] as [(String, RawReplyServer.Ending, String)])
    func aServerThatHangsUpEarlyIsAConnectionFailure(reply: String, ending: RawReplyServer.Ending, detail: String)
        throws
    {
        let server = try RawReplyServer(reply: reply, ending: ending)
        defer { server.stop() }
        let transport = CurlMultiTransport(maxConnectionsPerHost: 4, timeout: .seconds(5))
        let result = transport.postNow(
            URL(string: "http://127.0.0.1:\(server.port)/verifyReceipt")!, body: Self.body,
            headers: Self.headers, timeout: .seconds(5))
        guard case .failed(let failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure == .connectionFailed(detail: detail))
        #expect(!failure.description.contains("s3cr3t"))
        #expect(!failure.description.contains("MIIB"))
    }

    /// The loop, not a thread, waits out the throttle: a request handed over before its token is due
    /// starts no sooner than that. Six tokens at 5/s with a burst of 1 take at least a second, though all
    /// six are handed over at once; starting them at hand-over would take milliseconds.
    @Test func throttledRequestsStartNoSoonerThanTheirTokens() throws {
        let apple = try ScriptedAppleServer(production: [.status(0)])
        let transport = CurlMultiTransport(maxConnectionsPerHost: 3, timeout: .seconds(10))
        let clock = SystemThrottleClock()
        let bucket = TokenBucket(rate: 5, burst: 1, clock: clock)
        let throttle = RequestThrottle(maxInFlight: 3)
        let request = HTTPClientRequest(
            method: .post, url: apple.productionURL, body: Self.body, headers: Self.headers, timeout: .seconds(10))
        let started = ContinuousClock.now
        let answered = Atomic(0)
        let done = DispatchGroup()
        for _ in 0..<6 {
            done.enter()
            throttle.begin(tokenFrom: bucket) { notBefore in
                transport.send(request, notBefore: notBefore, on: clock) { result in
                    throttle.end()
                    if case .response(let reply) = result, reply.statusCode == 200 {
                        answered.add(1, ordering: .relaxed)
                    }
                    done.leave()
                }
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(answered.load(ordering: .relaxed) == 6)
        #expect(ContinuousClock.now - started >= .seconds(1), "requests started before their tokens were due")
    }

    /// A clock whose instants are far from the system's: what a test's clock, or another origin, looks like.
    struct DistantClock: ThrottleClock {
        func now() -> Duration { .seconds(4_000_000_000) }
        func wallClock() -> Date { Date() }
        func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
            SystemThrottleClock().schedule(after: delay, work)
        }
    }

    /// The start instant is read on the clock the request comes with: a request due now on a clock
    /// whose origin is far from the system's starts at once, neither decades late nor refused.
    @Test func theStartInstantIsReadOnTheRequestsClock() throws {
        let apple = try ScriptedAppleServer(production: [.status(0)])
        let transport = CurlMultiTransport(maxConnectionsPerHost: 1, timeout: .seconds(10))
        let clock = DistantClock()
        let request = HTTPClientRequest(
            method: .post, url: apple.productionURL, body: Self.body, headers: Self.headers, timeout: .seconds(10))
        let result = Mutex<HTTPExchangeResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        transport.send(request, notBefore: clock.now(), on: clock) { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success, "a request due now on its clock was not sent")
        guard case .response(let reply) = result.withLock({ $0 }) else {
            Issue.record("expected a reply, got \(String(describing: result.withLock { $0 }))")
            return
        }
        #expect(reply.statusCode == 200)
        #expect(apple.received.count == 1)
    }

    /// The loop keeps an idle kept-alive connection in its epoll set between requests; when the server
    /// closes it there, the loop must drop it rather than be woken by it again and again, and the next
    /// request must still get through (libcurl finds the connection dead and opens another).
    @Test func aServerClosingIdleConnectionsNeitherSpinsTheLoopNorFailsTheNextRequest() throws {
        let server = try RawReplyServer(
            reply: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"status\":0}")
        defer { server.stop() }
        let transport = CurlMultiTransport(maxConnectionsPerHost: 1, timeout: .seconds(5))
        let threadName = try #require(transport.threadName)
        let url = URL(string: "http://127.0.0.1:\(server.port)/verifyReceipt")!
        for request in 1...4 {
            let result = transport.postNow(url, body: Self.body, headers: Self.headers, timeout: .seconds(5))
            guard case .response(let reply) = result else {
                Issue.record("request \(request): \(result)")
                return
            }
            #expect(reply.statusCode == 200)
            // The server has closed this connection; give the loop time to see it while idle.
            let before = try #require(Self.cpuSeconds(ofThreadNamed: threadName))
            Thread.sleep(forTimeInterval: 0.5)
            let after = try #require(Self.cpuSeconds(ofThreadNamed: threadName))
            #expect(after - before < 0.2, "the loop thread used \(after - before) s of CPU while idle: it spins")
        }
    }

    /// User plus system CPU of this process's thread named `name`, from /proc (clock ticks).
    static func cpuSeconds(ofThreadNamed name: String) -> Double? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.trimmingCharacters(in: .newlines) == name,
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let afterName = stat.lastIndex(of: ")")
            else { continue }
            // Fields after the name: state is field 3, utime 14 and stime 15 of the whole line.
            let fields = stat[stat.index(after: afterName)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        return nil
    }

    /// Headers are kept as libcurl delivered them and read on demand: names in any case, the first of a
    /// repeated name, values trimmed, and nothing from an interim `100 Continue` block.
    @Test func replyHeadersAreReadWhateverTheirCase() throws {
        let server = try RawReplyServer(
            reply: "HTTP/1.1 100 Continue\r\nRetry-After: 99\r\n\r\n"
                + "HTTP/1.1 503 Service Unavailable\r\nretry-AFTER: \t7 \r\nX-Empty:\r\nRetry-After: 9\r\n"
                + "Content-Type: text/html\r\nContent-Length: 2\r\n\r\nno")
        defer { server.stop() }
        let transport = CurlMultiTransport(maxConnectionsPerHost: 1, timeout: .seconds(5))
        let result = transport.postNow(
            URL(string: "http://127.0.0.1:\(server.port)/verifyReceipt")!, body: Self.body,
            headers: Self.headers, timeout: .seconds(5))
        guard case .response(let reply) = result else {
            Issue.record("expected a reply, got \(result)")
            return
        }
        #expect(reply.statusCode == 503)
        #expect(reply.header("retry-after") == "7")
        #expect(reply.header("content-type") == "text/html")
        #expect(reply.header("x-empty") == "")
        #expect(reply.header("x-missing") == nil)
        #expect(
            reply.headers == ["retry-after": "7", "x-empty": "", "content-type": "text/html", "content-length": "2"])
        #expect(reply.body == Data("no".utf8))
    }

    /// Through the client, a hang-up mid-response is transient: retried, then unverified, never invalid.
    @Test func theClientRetriesAResponseCutShort() throws {
        let server = try RawReplyServer(reply: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"status\":0")
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/verifyReceipt")!
        let client = VerifyReceiptRig(
            client: VerifyReceiptClient(
                configuration: VerifyReceiptClient.Configuration(
                    productionURL: url, sandboxURL: url, sharedSecret: "s3cr3t-shared", timeout: .seconds(5),
                    budget: VerifyReceiptRetryBudget(maxAttempts: 2),
                    backoff: BackoffPolicy(base: .milliseconds(5), cap: .milliseconds(10), seed: 1))),
            driver: ExchangeDriver(
                transport: CurlMultiTransport(maxConnectionsPerHost: 2, timeout: .seconds(5)), rate: 1000,
                maxInFlight: 2))
        let report = client.verify(receiptData: "MIIBcjCCAW4GCSqGSIb3DQEHAqCCAV8w")
        #expect(report.requests == 2)
        #expect(
            report.verdict
                == .unverified(
                    .retriesExhausted(.transport(.connectionFailed(detail: "connection closed mid-response")))))
        #expect(!report.detail.contains("s3cr3t-shared"))
    }

    /// 16 lanes × 125 requests each: libcurl keeps the connections, so the server sees about one per
    /// lane, the handles are pooled, the transport runs one thread, and it is gone with the transport.
    @Test func twoThousandRequestsReuseConnectionsHandlesAndOneThread() throws {
        let apple = try ScriptedAppleServer(production: [.status(0)])
        let lanes = 16
        var transport: CurlMultiTransport? = CurlMultiTransport(maxConnectionsPerHost: lanes, timeout: .seconds(10))
        weak let weakTransport = transport
        let threadName = try #require(transport?.threadName)
        #expect(Self.waitForThreads(named: threadName, count: 1))

        // In a scope of its own, so that `transport = nil` below drops the last reference held here.
        do {
            let shared = try #require(transport)
            let answered = Atomic(0)
            let done = DispatchGroup()
            for _ in 0..<lanes {
                done.enter()
                Thread.detachNewThread { [apple] in
                    for _ in 0..<125 {
                        if case .response(let reply) = shared.postNow(
                            apple.productionURL, body: Self.body, headers: Self.headers,
                            timeout: .seconds(10)),
                            reply.statusCode == 200, reply.headers["content-type"] == "application/json",
                            (try? VerifyReceiptResponse.decode(reply.body))?.rawStatus == 0
                        {
                            answered.add(1, ordering: .relaxed)
                        }
                    }
                    done.leave()
                }
            }
            #expect(done.wait(timeout: .now() + 120) == .success)
            #expect(answered.load(ordering: .relaxed) == 2000)
            let connections = apple.server.stats.connectionsAccepted
            #expect(connections <= lanes, "\(connections) connections for 2,000 requests")
            #expect(shared.statistics.transfers == 2000)
            #expect(shared.statistics.easyHandles <= lanes)
            #expect(Self.threads(named: threadName) == 1)
        }

        transport = nil
        // The last lane thread may still hold the transport for a moment after `leave()`.
        let deadline = ContinuousClock.now + .seconds(5)
        while (weakTransport != nil || Self.threads(named: threadName) > 0) && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(weakTransport == nil)
        #expect(Self.threads(named: threadName) == 0, "the loop thread outlived its transport")
    }

    /// Verification stays on: a self-signed certificate is refused.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func aSelfSignedHTTPSServerIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let made = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", certificate, "-subj", "/CN=127.0.0.1", "-days", "1",
            ], timeout: 20)
        try #require(made.status == 0, "\(made.stderrText)")
        let (port, descriptor) = try RawReplyServer.refusingPort()
        close(descriptor)
        let server = try ChildProcess.start(
            "/usr/bin/openssl",
            [
                "s_server", "-accept", "127.0.0.1:\(port)", "-key", key, "-cert", certificate, "-www", "-quiet",
            ])
        defer {
            server.signal(SIGKILL)
            _ = try? server.wait(timeout: 5)
        }
        let transport = CurlMultiTransport(maxConnectionsPerHost: 2, timeout: .seconds(5))
        let url = URL(string: "https://127.0.0.1:\(port)/verifyReceipt")!
        var result = transport.postNow(url, body: Self.body, headers: Self.headers, timeout: .seconds(5))
        // s_server may not listen yet.
        let deadline = ContinuousClock.now + .seconds(10)
        while case .failed(.connectionFailed("connection refused")) = result, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            result = transport.postNow(url, body: Self.body, headers: Self.headers, timeout: .seconds(5))
        }
        guard case .failed(.connectionFailed(let detail)) = result else {
            Issue.record("expected a TLS failure, got \(result)")
            return
        }
        #expect(detail == "TLS failure (curl 60)")
    }

    /// Waits until `count` threads have `name` (a new thread names itself once it runs).
    static func waitForThreads(named name: String, count: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while threads(named: name) != count && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return threads(named: name) == count
    }

    /// Threads of this process with `name` (the kernel's view, not Foundation's).
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .newlines) == name
        }.count
    }
}
