import Foundation
import Testing

@testable import AppStoreSimulator

/// Throughput measurements; they print numbers and assert nothing about speed.
///
/// Off by default (they take seconds and load both cores). Run them with
/// `HTTP_BENCH=1 swift test -c release --filter HTTPServerBenchmark`. With `HTTP_BENCH_SERVE_SECONDS=N`
/// (and optionally `HTTP_BENCH_PORT`) a server with a zero-latency handler listens for N seconds, for an
/// external load generator such as `wrk -t2 -c64 -d5s http://127.0.0.1:PORT/`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["HTTP_BENCH"] != nil))
struct HTTPServerBenchmark {
    /// What a verifyReceipt answer costs to produce at zero latency: a small JSON body.
    private static let handler = HTTPHandlerClosure { request in
        .json(Data(#"{"status":0,"environment":"Production","request":\#(request.requestIndex)}"#.utf8))
    }

    @Test(arguments: [1, 16, 64])
    func keepAliveRawClients(clients: Int) async throws {
        try await withServer(handler: Self.handler) { server in
            let port = server.port
            let seconds = 3
            let deadline = ContinuousClock.now + .seconds(seconds)
            let counts = try await TestThreads.run(clients) { _ -> Int in
                let client = try RawHTTPClient(port: port)
                var done = 0
                while ContinuousClock.now < deadline {
                    try client.post("/verifyReceipt", body: #"{"receipt-data":"MIIT","password":"s"}"#)
                    guard try client.readResponse().status == 200 else { break }
                    done += 1
                }
                return done
            }
            let total = counts.reduce(0, +)
            print(
                "bench: \(clients) keep-alive raw clients in-process: \(total / seconds) req/s (\(total) in \(seconds) s)"
            )
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["HTTP_BENCH_SERVE_SECONDS"] != nil))
    func serveForExternalLoad() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = Double(environment["HTTP_BENCH_SERVE_SECONDS"] ?? "") ?? 10
        let port = UInt16(environment["HTTP_BENCH_PORT"] ?? "") ?? 0
        let server = HTTPServer(port: port, handler: Self.handler)
        try server.start()
        print("bench: serving on http://\(server.authority)/ for \(seconds) s")
        try await TestThreads.run { Thread.sleep(forTimeInterval: seconds) }
        try await TestThreads.run { server.stop() }
        let stats = server.stats
        print(
            "bench: \(stats.responsesSent) responses, \(stats.connectionsAccepted) connections, peak in flight \(stats.peakRequestsInFlight)"
        )
    }
}
