import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// Throughput of the Server API answers with signing, cold (every item signed) and warm (from the
/// cache), and of the token check; prints numbers and asserts nothing about speed.
///
/// Off by default: `SIM_BENCH=1 swift test -c release --filter ServerAPIBenchmark`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["SIM_BENCH"] != nil))
struct ServerAPIBenchmark {
    @Test func historyAnswersAndTokens() throws {
        let world = SimulatedWorld(users: 100_000, seed: 1, asOf: testAsOf)
        let locator = WorldReceiptLocator(world: world)
        let chain = ServerAPIFixture.chain
        let answerer = ServerAPIAnswerer(
            world: world, units: { locator.unit($0) }, signer: ServerAPISigner(chain: chain))
        // The first transaction of the first account of 5,000 units spread over the world.
        let ids: [String] = stride(from: 0, to: world.unitCount, by: world.unitCount / 5000).compactMap {
            world.unit($0).accounts.first?.transactions.first?.transactionID
        }
        var items = 0
        for pass in ["cold", "warm"] {
            var answered = 0
            SimulatorBenchmark.measure("history \(pass)", count: ids.count) {
                for id in ids {
                    let reply = answerer.answer(
                        .transactionHistory, id: id, environment: .production, bundleID: WorldCatalog.appBundleID,
                        query: nil,
                        queryValue: { _ in nil })
                    if reply.status == 200 { answered += 1 }
                    if pass == "cold" {
                        items += String(decoding: reply.body, as: UTF8.self).split(separator: "\"eyJ").count - 1
                    }
                }
            }
            print("bench: \(answered) answered 200, \(items) signed items")
        }
        let token = ServerAPIFixture.token()
        let now = Int64(Date().timeIntervalSince1970)
        SimulatorBenchmark.measure("token check", count: 5000) {
            for _ in 0..<5000 {
                _ = ServerAPIToken.check(authorization: "Bearer " + token, key: ServerAPIFixture.key, now: now)
            }
        }
    }
}
