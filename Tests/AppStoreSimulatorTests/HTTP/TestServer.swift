import Foundation

@testable import AppStoreSimulator

extension HTTPServer.Configuration {
    /// Production defaults with a short grace period, so a test's teardown never waits seconds.
    static var testing: HTTPServer.Configuration {
        HTTPServer.Configuration(stopGracePeriod: .milliseconds(500))
    }
}

/// Starts a server on an ephemeral loopback port for `body`, and stops it afterwards, also on failure.
func withServer<T: Sendable>(
    maxBodyBytes: Int = 1 << 20,
    configuration: HTTPServer.Configuration = .testing,
    handler: any HTTPHandler,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    let server = HTTPServer(maxBodyBytes: maxBodyBytes, configuration: configuration, handler: handler)
    try server.start()
    do {
        let result = try await body(server)
        try await TestThreads.run { server.stop() }
        return result
    } catch {
        try? await TestThreads.run { server.stop() }
        throw error
    }
}

/// Answers every request with what it saw: `METHOD path [query] #index body`, plus the connection id
/// and request index in `X-Connection` / `X-Request-Index`.
struct EchoHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = request.query.map { " ?\($0)" } ?? ""
        return .text(
            "\(request.method) \(request.path)\(query) #\(request.requestIndex) \(String(decoding: request.body, as: UTF8.self))",
            headers: [("X-Connection", "\(request.connectionID)"), ("X-Request-Index", "\(request.requestIndex)")]
        )
    }
}

/// Polls `condition` every 5 ms for up to `limit`; for waiting on another thread's progress from a test
/// thread of our own (never the pool).
func waitUntil(_ limit: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}
