import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// Throughput of the simulator's parts; prints numbers and asserts nothing about speed.
///
/// Off by default: `SIM_BENCH=1 swift test -c release --filter SimulatorBenchmark`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["SIM_BENCH"] != nil))
struct SimulatorBenchmark {
    static let world = SimulatedWorld(users: 20_000, seed: 1, asOf: testAsOf)

    static func measure(_ label: String, count: Int, _ body: () -> Void) {
        let started = ContinuousClock.now
        body()
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        print(
            "bench: \(label): \(count) in \(String(format: "%.3f", seconds)) s = "
                + "\(String(format: "%.1f", Double(count) / seconds))/s, \(String(format: "%.1f", seconds / Double(count) * 1e6)) µs each"
        )
    }

    @Test func generationEncodingAndAnswers() throws {
        let world = Self.world
        var units: [WorldUnit] = []
        Self.measure("build units", count: world.unitCount) {
            world.forEachUnit { units.append($0) }
        }
        var receipts: [String] = []
        Self.measure("encode receipts", count: units.reduce(0) { $0 + $1.receipts.count }) {
            for unit in units {
                for slot in unit.receipts.indices { receipts.append(unit.receiptData(slot)) }
            }
        }
        Self.measure("decode receipts", count: receipts.count) {
            for receipt in receipts { _ = try? LocalReceiptDecoder.decode(base64: receipt) }
        }
        let locator = WorldReceiptLocator(world: world, cacheCapacity: 1)
        Self.measure("identify receipts (uncached)", count: receipts.count) {
            for receipt in receipts { _ = locator.identify(receipt) }
        }
        let simulator = AppStoreSimulator(world: world)
        let bodies = try receipts.prefix(5000).map {
            Array(try JSONSerialization.data(withJSONObject: ["receipt-data": $0, "exclude-old-transactions": true]))
        }
        Self.measure("answer requests in-process (JSON in, JSON out)", count: bodies.count) {
            for body in bodies { _ = simulator.answer(body: body, endpoint: .production).jsonBytes }
        }
        let sample = Array(receipts.prefix(5000))
        Self.measure("parse request bodies", count: bodies.count) {
            for body in bodies { _ = VerifyReceiptRequestBody(json: body) }
        }
        let identities = sample.map { locator.identify($0) }
        let answerer = AppleAnswerer(world: world)
        var answers: [AppleAnswer] = []
        Self.measure("answer values without latest_receipt", count: identities.count) {
            for identity in identities {
                answers.append(
                    answerer.answer(
                        identity, unit: locator.unit, endpoint: .production, password: nil,
                        excludeOldTransactions: true, includeLatestReceipt: false))
            }
        }
        Self.measure("answer values with latest_receipt", count: identities.count) {
            for identity in identities {
                _ = answerer.answer(
                    identity, unit: locator.unit, endpoint: .production, password: nil, excludeOldTransactions: true)
            }
        }
        Self.measure("write answer JSON (no latest_receipt)", count: answers.count) {
            for answer in answers { _ = answer.jsonBytes }
        }
        Self.measure("derive expectation", count: world.userCount) {
            _ = ExpectationDeriver.derive(world: world)
        }
    }
}
