import Foundation
import Glibc
import Synchronization
import Testing

@testable import AppStoreSimulator

/// Protocol behaviour over raw sockets, where the test controls every byte.
@Suite struct HTTPServerTests {
    @Test func keepAliveServesTwoRequestsOnOneConnection() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            let (first, second) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/a?x=1")
                let first = try client.readResponse()
                try client.get("/b")
                return (first, try client.readResponse())
            }
            #expect(first.status == 200)
            #expect(first.text == "GET /a ?x=1 #0 ")
            #expect(second.text == "GET /b #1 ")
            #expect(first.headers["X-Connection"] == second.headers["X-Connection"])
            #expect(first.headers["Connection"] == "keep-alive")
            #expect(first.headers["Date"]?.hasSuffix(" GMT") == true)
            #expect(first.headers["Content-Length"] == "\(first.body.count)")
            #expect(server.stats.connectionsAccepted == 1)
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            let (response, rest) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/", headers: "Connection: close\r\n")
                return (try client.readResponse(), try client.readUntilClosed())
            }
            #expect(response.status == 200)
            #expect(response.headers["Connection"] == "close")
            #expect(rest.isEmpty)
        }
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            let (plain, rest, kept, again) = try await TestThreads.run {
                let closing = try RawHTTPClient(port: port)
                try closing.send("GET /old HTTP/1.0\r\n\r\n")
                let plain = try closing.readResponse()
                let rest = try closing.readUntilClosed()
                let keeping = try RawHTTPClient(port: port)
                try keeping.send("GET /k HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let kept = try keeping.readResponse()
                try keeping.send("GET /k2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                return (plain, rest, kept, try keeping.readResponse())
            }
            #expect(plain.status == 200)
            #expect(plain.headers["Connection"] == "close")
            #expect(rest.isEmpty)
            #expect(kept.headers["Connection"] == "keep-alive")
            #expect(again.text == "GET /k2 #1 ")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            let texts = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                // One write: a GET, a POST with a body, a leading empty line (tolerated) and a closing GET.
                try client.send(
                    "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
                        + "POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody"
                        + "\r\nGET /3 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                )
                return try (0..<3).map { _ in try client.readResponse().text } + [
                    String(decoding: try client.readUntilClosed(), as: UTF8.self)
                ]
            }
            #expect(texts == ["GET /1 #0 ", "POST /2 #1 body", "GET /3 #2 ", ""])
        }
    }

    /// A delay counts from when the request reached the server's socket, not from when the connection's
    /// thread got to read it: here the second of two pipelined requests waits, unread, through the first
    /// one's delay, and is answered one delay after both arrived, as a server elsewhere would answer.
    @Test func aDelayCountsFromTheRequestsArrivalNotFromItsReading() async throws {
        let handler = HTTPHandlerClosure { request in .text(request.path).delayed(by: .seconds(1)) }
        try await withServer(handler: handler) { server in
            let port = server.port
            let (texts, first, second) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                let sent = ContinuousClock.now
                try client.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n")
                let one = try client.readResponse()
                let first = ContinuousClock.now - sent
                let two = try client.readResponse()
                return ([one.text, two.text], first, ContinuousClock.now - sent)
            }
            #expect(texts == ["/1", "/2"])
            #expect(first >= .seconds(1), "never before the delay")
            // Read after the first answer, 1 s after it arrived: answered at once, not 1 s later still.
            #expect(second < .milliseconds(1500), "the second answer took \(second)")
        }
    }

    @Test func routerAnswers404And405OverTheWire() async throws {
        var router = HTTPRouter()
        router.add("POST", "/verifyReceipt") { request in .json(request.bodyData) }
        try await withServer(handler: router) { server in
            let port = server.port
            let (ok, wrongMethod, missing, head) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.post("/verifyReceipt", body: #"{"receipt-data":"x"}"#)
                let ok = try client.readResponse()
                try client.get("/verifyReceipt")
                let wrongMethod = try client.readResponse()
                try client.get("/nowhere")
                let missing = try client.readResponse()
                try client.send("HEAD /verifyReceipt HTTP/1.1\r\nHost: a\r\n\r\n")
                return (ok, wrongMethod, missing, try client.readResponse(bodyless: true))
            }
            #expect(ok.status == 200)
            #expect(ok.text == #"{"receipt-data":"x"}"#)
            #expect(ok.headers["Content-Type"] == "application/json")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.headers["Allow"] == "POST")
            #expect(missing.status == 404)
            #expect(head.status == 405)
            #expect(server.stats.responsesByStatus == [200: 1, 404: 1, 405: 2])
        }
    }

    @Test func headSendsLengthButNoBody() async throws {
        var router = HTTPRouter()
        router.add("GET", "/stats") { _ in .text("twelve bytes") }
        try await withServer(handler: router) { server in
            let port = server.port
            let (head, get) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.send("HEAD /stats HTTP/1.1\r\nHost: a\r\n\r\n")
                let head = try client.readResponse(bodyless: true)
                try client.get("/stats")  // parses only if HEAD left no body bytes behind
                return (head, try client.readResponse())
            }
            #expect(head.headers["Content-Length"] == "12")
            #expect(head.body.isEmpty)
            #expect(get.text == "twelve bytes")
        }
    }

    /// Malformed requests reach the wire as the right status, and the connection is closed after it.
    @Test(arguments: [
        ("BLAH\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n continued\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 411),
        ("GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "y", count: 17_000) + "\r\n\r\n", 431),
    ])
    func malformedRequestsGetErrorStatusAndClose(request: String, status: Int) async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            let (response, rest) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.send(request)
                return (try client.readResponse(), try client.readUntilClosed())
            }
            #expect(response.status == status)
            #expect(response.headers["Connection"] == "close")
            #expect(rest.isEmpty)
            #expect(server.stats.requestsReceived == 0)
        }
    }

    @Test func malformedRequestDoesNotDisturbOtherConnections() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            let (before, bad, after) = try await TestThreads.run {
                let good = try RawHTTPClient(port: port)
                try good.get("/one")
                let before = try good.readResponse()
                let evil = try RawHTTPClient(port: port)
                try evil.send("\u{1}\u{2}NOT HTTP AT ALL\r\n\r\n")
                let bad = try evil.readResponse()
                _ = try evil.readUntilClosed()
                try good.get("/two")
                return (before, bad, try good.readResponse())
            }
            #expect(bad.status == 400)
            #expect(after.status == 200)
            #expect(after.text == "GET /two #1 ")
            #expect(before.headers["X-Connection"] == after.headers["X-Connection"])
        }
    }

    @Test func oversizedBodyGets413BeforeItIsRead() async throws {
        try await withServer(maxBodyBytes: 1024, handler: EchoHandler()) { server in
            let port = server.port
            let (response, rest) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                // Announce 10 MB and send only a little: the answer must not wait for the rest.
                try client.send(
                    "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 10485760\r\n\r\n"
                        + String(repeating: "z", count: 4096))
                return (try client.readResponse(), try client.readUntilClosed())
            }
            #expect(response.status == 413)
            #expect(response.headers["Connection"] == "close")
            #expect(rest.isEmpty)
            #expect(server.stats.requestsReceived == 0)
        }
    }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        try await withServer(maxBodyBytes: 1024, handler: EchoHandler()) { server in
            let port = server.port
            let response = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.post("/", body: String(repeating: "k", count: 1024))
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.body.count == "POST / #0 ".utf8.count + 1024)
        }
    }

    @Test func expectContinueGetsInterimResponseOr413() async throws {
        try await withServer(maxBodyBytes: 1024, handler: EchoHandler()) { server in
            let port = server.port
            let (interim, final, refused) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.send("POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
                let interim = try client.readResponse()
                try client.send("hello")
                let final = try client.readResponse()
                try client.send("POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
                return (interim, final, try client.readResponse())
            }
            #expect(interim.status == 100)
            #expect(final.text == "POST /e #0 hello")
            #expect(refused.status == 413)
        }
    }

    @Test func idleKeepAliveConnectionIsClosedSilently() async throws {
        var configuration = HTTPServer.Configuration.testing
        configuration.idleTimeout = .milliseconds(200)
        try await withServer(configuration: configuration, handler: EchoHandler()) { server in
            let port = server.port
            let (response, rest) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                return (try client.readResponse(), try client.readUntilClosed())
            }
            #expect(response.status == 200)
            #expect(rest.isEmpty)
            #expect(server.stats.connectionsOpen == 0)
        }
    }

    @Test func slowRequestGets408() async throws {
        var configuration = HTTPServer.Configuration.testing
        configuration.requestTimeout = .milliseconds(200)
        try await withServer(configuration: configuration, handler: EchoHandler()) { server in
            let port = server.port
            let (response, rest) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nonly5")
                return (try client.readResponse(), try client.readUntilClosed())
            }
            #expect(response.status == 408)
            #expect(rest.isEmpty)
            #expect(server.stats.requestTimeouts == 1)
        }
    }

    @Test func resetActionResetsTheConnection() async throws {
        try await withServer(handler: HTTPHandlerClosure { _ in .reset() }) { server in
            let port = server.port
            let outcome = try await TestThreads.run { () -> RawClientError? in
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                do {
                    _ = try client.readResponse()
                    return nil
                } catch let error as RawClientError {
                    return error
                }
            }
            #expect(outcome == .reset)
            #expect(server.stats.connectionsReset == 1)
        }
    }

    @Test func closeWithoutResponseActionSendsNothing() async throws {
        try await withServer(handler: HTTPHandlerClosure { _ in .closeWithoutResponse() }) { server in
            let port = server.port
            let rest = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                return try client.readUntilClosed()
            }
            #expect(rest.isEmpty)
            #expect(server.stats.connectionsClosedWithoutResponse == 1)
            #expect(server.stats.responsesSent == 0)
        }
    }

    @Test func delayActionDelaysTheResponseAfterTheHandlerReturns() async throws {
        let handlerReturned = Locked<ContinuousClock.Instant?>(nil)
        let handler = HTTPHandlerClosure { _ in
            defer { handlerReturned.withLock { $0 = .now } }
            return .text("late").delayed(by: .milliseconds(300))
        }
        try await withServer(handler: handler) { server in
            let port = server.port
            let (response, received) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                let response = try client.readResponse()
                return (response, ContinuousClock.now)
            }
            #expect(response.text == "late")
            let returned = try #require(handlerReturned.withLock { $0 })
            #expect(returned.duration(to: received) >= .milliseconds(290))
        }
    }

    @Test func handlerErrorBecomes500() async throws {
        struct Boom: Error {}
        try await withServer(handler: HTTPHandlerClosure { _ in throw Boom() }) { server in
            let port = server.port
            let (response, next) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                let response = try client.readResponse()
                try client.get("/")  // the connection survives a handler error
                return (response, try client.readResponse())
            }
            #expect(response.status == 500)
            #expect(!response.text.contains("Boom"))
            #expect(next.status == 500)
        }
    }

    @Test func handlerCanAskToClose() async throws {
        try await withServer(handler: HTTPHandlerClosure { _ in .text("bye", headers: [("Connection", "close")]) }) {
            server in
            let port = server.port
            let (response, rest) = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                return (try client.readResponse(), try client.readUntilClosed())
            }
            #expect(response.headers["Connection"] == "close")
            #expect(response.headers.values(for: "Connection").count == 1)
            #expect(rest.isEmpty)
        }
    }

    @Test func statsCountConnectionsRequestsStatusesAndBytes() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            _ = try await TestThreads.run(3) { _ in
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                _ = try client.readResponse()
                try client.get("/")
                _ = try client.readResponse()
            }
            #expect(waitUntil { server.stats.requestsInFlight == 0 })
            let stats = server.stats
            #expect(stats.connectionsAccepted == 3)
            #expect(stats.requestsReceived == 6)
            #expect(stats.responsesSent == 6)
            #expect(stats.responsesByStatus == [200: 6])
            #expect(stats.peakRequestsInFlight >= 1)
            #expect(stats.bytesReceived == 6 * "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8.count)
            #expect(stats.bytesSent > 6 * 100)
        }
    }

    /// Writing to a peer that is gone must fail quietly: without `MSG_NOSIGNAL` this raises SIGPIPE and the
    /// whole test process dies. (A socketpair makes the EPIPE deterministic; over TCP the first write after
    /// a reset reports ECONNRESET instead.)
    @Test func writingToAClosedPeerDoesNotRaiseSIGPIPE() {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        close(pair[1])
        let written = [UInt8](repeating: 1, count: 16).withUnsafeBytes { Socket.sendAll(pair[0], $0) }
        #expect(!written)
        close(pair[0])
    }

    /// Clients that reset their connection while the server is still working leave it healthy.
    @Test func clientsThatHangUpDoNotDisturbTheServer() async throws {
        let handler = HTTPHandlerClosure { _ in
            HTTPResponse(status: 200, body: [UInt8](repeating: 0x61, count: 1 << 20)).delayed(by: .milliseconds(50))
        }
        try await withServer(handler: handler) { server in
            let port = server.port
            _ = try await TestThreads.run(16) { _ in
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                var reset = linger(l_onoff: 1, l_linger: 0)  // hang up hard: RST, so the server's write fails
                setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            }
            #expect(waitUntil { server.stats.connectionsOpen == 0 })
            let response = try await TestThreads.run {
                let client = try RawHTTPClient(port: port)
                try client.get("/")
                return try client.readResponse()
            }
            #expect(response.body.count == 1 << 20)
        }
    }

    @Test func statsEncodeAsJSON() throws {
        var stats = HTTPServerStats()
        stats.responsesByStatus = [200: 3, 503: 1]
        let json = String(decoding: try JSONEncoder().encode(stats), as: UTF8.self)
        #expect(json.contains(#""responsesByStatus":{"#))
        #expect(json.contains(#""200":3"#))
    }

    @Test func startTwiceFailsAndPortInUseIsReported() async throws {
        try await withServer(handler: EchoHandler()) { server in
            #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
            let clash = HTTPServer(port: server.port, handler: EchoHandler())
            #expect(throws: HTTPServerError.self) { try clash.start() }
            #expect(!clash.isRunning)
        }
    }
}
