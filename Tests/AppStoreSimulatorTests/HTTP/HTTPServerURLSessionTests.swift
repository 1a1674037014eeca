import Foundation
import Testing

@testable import AppStoreSimulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server as the job will meet it: through URLSession (libcurl on Linux).
enum TestURLSession {
    /// One session for the whole test process (short-lived sessions crash on Linux, DESIGN trap 3), with
    /// room for 64 connections per host (the default 6 is enforced) and explicit timeouts.
    static let shared: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 10
        configuration.timeoutIntervalForResource = 20
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// Sends `request` and awaits the completion handler; nothing blocks while waiting.
    static func send(_ request: URLRequest) async -> Result<(Data, HTTPURLResponse), URLError> {
        await withCheckedContinuation { continuation in
            shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(returning: .failure(error as? URLError ?? URLError(.unknown)))
                } else if let response = response as? HTTPURLResponse {
                    continuation.resume(returning: .success((data ?? Data(), response)))
                } else {
                    continuation.resume(returning: .failure(URLError(.badServerResponse)))
                }
            }.resume()
        }
    }

    static func url(_ server: HTTPServer, _ path: String) throws -> URL {
        try #require(URL(string: "http://\(server.authority)\(path)"))
    }
}

@Suite(.serialized) struct HTTPServerURLSessionTests {
    @Test func sixtyFourRequestsAreInFlightTogether() async throws {
        let gauge = ConcurrencyGauge()
        let handler = HTTPHandlerClosure { _ in
            gauge.enter()
            defer { gauge.leave() }
            gauge.hold(minimum: .milliseconds(200), untilInFlight: 64, limit: .seconds(5))
            return .text("ok")
        }
        try await withServer(handler: handler) { server in
            let url = try TestURLSession.url(server, "/slow")
            let statuses = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        (try? await TestURLSession.send(URLRequest(url: url)).get().1.statusCode) ?? -1
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 64))
            #expect(gauge.peak >= 64)
            #expect(server.stats.connectionsAccepted == 64)
        }
    }

    @Test func keepAliveConnectionIsReused() async throws {
        try await withServer(handler: EchoHandler()) { server in
            let url = try TestURLSession.url(server, "/again")
            var connections: Set<String> = []
            for _ in 0..<10 {
                let (_, response) = try await TestURLSession.send(URLRequest(url: url)).get()
                connections.insert(response.value(forHTTPHeaderField: "X-Connection") ?? "?")
            }
            #expect(connections.count == 1)
            #expect(server.stats.connectionsAccepted == 1)
            #expect(server.stats.responsesSent == 10)
        }
    }

    @Test func postBodyRoundTrips() async throws {
        var router = HTTPRouter()
        router.add("POST", "/verifyReceipt") { request in
            .json(request.bodyData, headers: [("X-Content-Type-Seen", request.headers["content-type"] ?? "")])
        }
        try await withServer(handler: router) { server in
            var request = URLRequest(url: try TestURLSession.url(server, "/verifyReceipt"))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            // Larger than libcurl's threshold for `Expect: 100-continue`, so that path is exercised too.
            let payload = Data("{\"receipt-data\":\"\(String(repeating: "QUJD", count: 20_000))\"}".utf8)
            request.httpBody = payload
            let (data, response) = try await TestURLSession.send(request).get()
            #expect(response.statusCode == 200)
            #expect(data == payload)
            #expect(response.value(forHTTPHeaderField: "X-Content-Type-Seen") == "application/json")

            request.httpMethod = "GET"
            request.httpBody = nil
            let (_, wrong) = try await TestURLSession.send(request).get()
            #expect(wrong.statusCode == 405)
            #expect(wrong.value(forHTTPHeaderField: "Allow") == "POST")
        }
    }

    @Test(arguments: [HTTPResponse.reset(), .closeWithoutResponse()])
    func faultActionsSurfaceAsTransportErrors(fault: HTTPResponse) async throws {
        try await withServer(handler: HTTPHandlerClosure { _ in fault }) { server in
            let result = await TestURLSession.send(URLRequest(url: try TestURLSession.url(server, "/fault")))
            #expect(throws: URLError.self) { try result.get() }
        }
    }

    @Test func stallLongerThanTheClientTimeoutTimesOut() async throws {
        try await withServer(handler: HTTPHandlerClosure { _ in .text("too late").delayed(by: .seconds(30)) }) {
            server in
            var request = URLRequest(url: try TestURLSession.url(server, "/stall"))
            // Whole seconds only: swift-corelibs-foundation truncates timeoutInterval to seconds (measured
            // here: 1.5 s behaves as 1 s, and 0.5 s fails with -1001 at once).
            request.timeoutInterval = 1
            let start = ContinuousClock.now
            let result = await TestURLSession.send(request)
            #expect(throws: URLError(.timedOut)) { try result.get() }
            #expect(ContinuousClock.now - start >= .milliseconds(900))  // the stall timed out, nothing else
            #expect(server.stats.requestsInFlight == 1)  // the server is still "working" on it
        }
    }
}
