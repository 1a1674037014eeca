import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// Many keep-alive clients at once, no faults configured: every request gets its answer.
@Suite struct SimulatorConcurrencyTests {
    /// 64 keep-alive connections POSTing real receipts of every kind for 10 seconds: zero errors, each
    /// answer the one the simulator gives that receipt on its own, one TCP connection per client.
    @Test func sixtyFourKeepAliveClientsForTenSecondsSeeNoErrors() async throws {
        let world = TestWorlds.small
        var receipts: [(body: String, status: Int)] = []
        let reference = AppStoreSimulator(world: world)
        world.forEachUnit(in: 0..<40) { unit in
            for slot in unit.receipts.indices {
                let body = try! AppStoreSimulator.requestBody(unit.receiptData(slot))
                receipts.append(
                    (String(decoding: body, as: UTF8.self), reference.answer(body: body, endpoint: .production).status))
            }
        }
        let pool = receipts
        try await withSimulator(world) { simulator in
            let port = simulator.port
            let deadline = ContinuousClock.now + .seconds(10)
            let outcomes = try await TestThreads.run(64) { client -> (requests: Int, errors: [String]) in
                let connection = try RawHTTPClient(port: port, timeout: .seconds(10))
                var requests = 0
                var errors: [String] = []
                var index = client
                while ContinuousClock.now < deadline {
                    let (body, status) = pool[index % pool.count]
                    index += 7
                    do {
                        try connection.post("/production/verifyReceipt", body: body)
                        let response = try connection.readResponse()
                        let answer = try VerifyReceiptResponse.decode(Data(response.body))
                        if response.status != 200 || answer.rawStatus != status {
                            errors.append("HTTP \(response.status), status \(answer.rawStatus) instead of \(status)")
                        }
                    } catch {
                        errors.append("\(error)")
                        break
                    }
                    requests += 1
                }
                return (requests, errors)
            }
            let errors = outcomes.flatMap(\.errors)
            let total = outcomes.reduce(0) { $0 + $1.requests }
            #expect(errors.isEmpty, "\(errors.count) errors, first: \(errors.first ?? "")")
            #expect(outcomes.allSatisfy { $0.requests > 0 })
            let stats = simulator.stats
            #expect(stats.requests == total)
            #expect(stats.server.connectionsAccepted == 64, "keep-alive: one connection per client")
            print(
                "simulator: 64 keep-alive clients, 10 s: \(total) requests (\(total / 10)/s), peak in flight \(stats.server.peakRequestsInFlight)"
            )
        }
    }

    @Test func statsAreServedAsJSON() async throws {
        try await withSimulator(TestWorlds.small) { simulator in
            let port = simulator.port
            let unit = TestWorlds.small.unit(0)
            let body = String(decoding: try AppStoreSimulator.requestBody(unit.receiptData(0)), as: UTF8.self)
            let response = try await TestThreads.run { () -> RawResponse in
                let client = try RawHTTPClient(port: port)
                for _ in 0..<3 {
                    try client.post("/production/verifyReceipt", body: body)
                    _ = try client.readResponse()
                }
                try client.post("/sandbox/verifyReceipt", body: body)
                _ = try client.readResponse()
                try client.get("/stats")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            let stats = try JSONDecoder().decode(SimulatorStats.self, from: Data(response.body))
            #expect(stats.requests == 4)
            #expect(stats.requestsByEndpoint == ["production": 3, "sandbox": 1])
            #expect(stats.answersByStatus == ["0": 3, "21008": 1])
            #expect(stats.responsesByHTTPStatus == ["200": 4])
            #expect(stats.maxRequestsInOneSecond == 4)
            #expect(!response.text.contains(unit.receiptData(0).prefix(40)), "no receipt data in stats")
        }
    }
}
