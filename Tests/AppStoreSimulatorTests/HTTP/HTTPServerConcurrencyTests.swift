import Foundation
import Glibc
import Synchronization
import Testing

@testable import AppStoreSimulator

/// Many clients at once, graceful stop, signals and a short soak. Serialized among themselves so that
/// their hundreds of threads do not all compete for the 2 cores at the same moment.
@Suite(.serialized) struct HTTPServerConcurrencyTests {
    /// A handler that blocks like a slow backend and records how many calls overlapped.
    private func blockingHandler(_ gauge: ConcurrencyGauge, target: Int) -> HTTPHandlerClosure {
        HTTPHandlerClosure { request in
            gauge.enter()
            defer { gauge.leave() }
            gauge.hold(minimum: .milliseconds(200), untilInFlight: target, limit: .seconds(5))
            return .text("slept #\(request.requestIndex)")
        }
    }

    @Test func sixtyFourBlockingHandlersRunAtOnce() async throws {
        let gauge = ConcurrencyGauge()
        try await withServer(handler: blockingHandler(gauge, target: 64)) { server in
            let port = server.port
            let statuses = try await TestThreads.run(64) { _ in
                let client = try RawHTTPClient(port: port, timeout: .seconds(8))
                try client.get("/slow")
                return try client.readResponse().status
            }
            #expect(statuses == Array(repeating: 200, count: 64))
            #expect(gauge.peak >= 64)
            #expect(server.stats.peakRequestsInFlight >= 64)
        }
    }

    @Test func twoHundredFiftySixConnectionsAreServedConcurrently() async throws {
        let gauge = ConcurrencyGauge()
        try await withServer(handler: blockingHandler(gauge, target: 256)) { server in
            let port = server.port
            let statuses = try await TestThreads.run(256) { _ in
                let client = try RawHTTPClient(port: port, timeout: .seconds(8))
                try client.get("/slow")
                return try client.readResponse().status
            }
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(gauge.peak >= 256)
        }
    }

    /// The simulator's latency fault: 64 delayed responses overlap, and the handler is not what waits.
    @Test func delayedResponsesOverlap() async throws {
        let gauge = ConcurrencyGauge()
        let handler = HTTPHandlerClosure { _ in
            gauge.enter()
            defer { gauge.leave() }
            return .text("later").delayed(by: .milliseconds(500))
        }
        try await withServer(handler: handler) { server in
            let port = server.port
            let connected = Locked(0)
            let statuses = try await TestThreads.run(64) { _ in
                let client = try RawHTTPClient(port: port, timeout: .seconds(8))
                // Connect all clients first, so that the 64 requests start together.
                connected.withLock { $0 += 1 }
                _ = waitUntil { connected.withLock { $0 } == 64 }
                try client.get("/")
                return try client.readResponse().status
            }
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(server.stats.peakRequestsInFlight >= 64)
            #expect(gauge.peak < 64)  // handlers returned at once; the delays overlapped, not the handlers
        }
    }

    @Test func gracefulStopLetsInFlightRequestFinishAndClosesIdleConnections() async throws {
        let entered = Locked(false)
        let handler = HTTPHandlerClosure { request in
            if request.path == "/slow" {
                entered.withLock { $0 = true }
                Thread.sleep(forTimeInterval: 0.3)
            }
            return .text("done \(request.path)")
        }
        let server = HTTPServer(configuration: .init(stopGracePeriod: .seconds(3)), handler: handler)
        try server.start()
        let port = server.port

        let warmed = Locked(false)
        let idleRest = TestThreads.start {
            // A keep-alive connection with no request in flight when the stop begins.
            let client = try RawHTTPClient(port: port)
            try client.get("/warm")
            _ = try client.readResponse()
            warmed.withLock { $0 = true }
            return try client.readUntilClosed()
        }
        let slow = TestThreads.start {
            let client = try RawHTTPClient(port: port)
            try client.get("/slow")
            return try client.readResponse()
        }
        let stopTook = try await TestThreads.run {
            _ = waitUntil { entered.withLock { $0 } && warmed.withLock { $0 } }
            let start = ContinuousClock.now
            server.stop()
            return ContinuousClock.now - start
        }
        let response = try await slow.value
        #expect(response.text == "done /slow")
        #expect(response.headers["Connection"] == "close")
        #expect(stopTook < .seconds(3))  // it waited for the request, not for the grace period
        #expect(try await idleRest.value.isEmpty)
        #expect(throws: RawClientError.connect(ECONNREFUSED)) { _ = try RawHTTPClient(port: port) }
        #expect(!server.isRunning)
        #expect(server.stats.connectionsOpen == 0)
    }

    @Test func stopCutsAStallAfterTheGracePeriod() async throws {
        var configuration = HTTPServer.Configuration.testing
        configuration.stopGracePeriod = .milliseconds(300)
        let server = HTTPServer(configuration: configuration) { _ in .text("never").delayed(by: .seconds(60)) }
        try server.start()
        let port = server.port
        let outcome = TestThreads.start { () -> String in
            let client = try RawHTTPClient(port: port)
            try client.get("/")
            do {
                return try client.readResponse().text
            } catch {
                return "\(error)"
            }
        }
        let stopTook = try await TestThreads.run {
            _ = waitUntil { server.stats.requestsInFlight == 1 }
            let start = ContinuousClock.now
            server.stop()
            return ContinuousClock.now - start
        }
        #expect(try await outcome.value != "never")
        #expect(stopTook >= .milliseconds(300))
        #expect(stopTook < .seconds(2))
    }

    @Test func stopOnSignalsStopsTheServer() async throws {
        let server = HTTPServer(configuration: .testing, handler: EchoHandler())
        try server.start()
        // SIGUSR2 rather than SIGTERM: the test process must not die if the source were not installed.
        let stopped = try await TestThreads.run { () -> Bool in
            server.stopOnSignals([SIGUSR2])
            kill(getpid(), SIGUSR2)
            guard waitUntil(.seconds(5), { !server.isRunning }) else { return false }
            server.waitUntilStopped()
            return true
        }
        #expect(stopped)
    }

    /// 64 keep-alive clients hammer the server for 3 s; not one request may fail.
    @Test func soakSixtyFourKeepAliveClients() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let port = server.port
            let deadline = ContinuousClock.now + .seconds(3)
            let counts = try await TestThreads.run(64) { index -> (ok: Int, errors: [String]) in
                var ok = 0
                var errors: [String] = []
                let client = try RawHTTPClient(port: port)
                while ContinuousClock.now < deadline {
                    do {
                        if ok % 2 == 0 {
                            try client.get("/soak/\(index)")
                        } else {
                            try client.post("/soak/\(index)", body: "{\"n\":\(ok)}")
                        }
                        let response = try client.readResponse()
                        let expected =
                            ok % 2 == 0 ? "GET /soak/\(index) #\(ok) " : "POST /soak/\(index) #\(ok) {\"n\":\(ok)}"
                        if response.status == 200 && response.text == expected {
                            ok += 1
                        } else {
                            errors.append("\(response.status) \(response.text)")
                        }
                    } catch {
                        errors.append("\(error)")
                        break
                    }
                }
                return (ok, errors)
            }
            let total = counts.reduce(0) { $0 + $1.ok }
            let errors = counts.flatMap(\.errors)
            #expect(errors.isEmpty, "\(errors.prefix(5))")
            #expect(total > 64)
            #expect(server.stats.connectionsAccepted == 64)
            print("soak: 64 keep-alive clients, \(total) requests in 3 s = \(total / 3) req/s, 0 errors")
        }
    }
}
