import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// The same `(users, seed, asOf, environment)` gives the same world, byte for byte: `simulator seed` and
/// `simulator serve` (two processes, maybe two machines) must agree on every receipt.
@Suite struct WorldDeterminismTests {
    @Test func aWorldBuiltTwiceIsByteIdentical() {
        let first = SimulatedWorld(users: 600, seed: 1, asOf: testAsOf)
        let second = SimulatedWorld(users: 600, seed: 1, asOf: testAsOf)
        var firstText = ""
        var secondText = ""
        first.forEachUnit { firstText += $0.canonicalText }
        second.forEachUnit { secondText += $0.canonicalText }
        #expect(firstText.utf8.count > 300_000)
        #expect(Array(firstText.utf8) == Array(secondText.utf8))
        #expect(first.digest == second.digest)
    }

    @Test func aUnitRebuiltAloneEqualsTheSameUnitInTheStream() {
        let world = TestWorlds.small
        var streamed: [WorldUnit] = []
        world.forEachUnit { streamed.append($0) }
        for index in [0, 1, 17, 50, world.unitCount - 1] {
            #expect(world.unit(index) == streamed[index])
        }
    }

    /// Pins the world across toolchains and machines. A change here means every seeded database and
    /// expected file of the old world is stale: update the constant only for an intended change of the world.
    @Test func theDigestOfAReferenceWorldIsPinned() {
        let world = SimulatedWorld(users: 300, seed: 42, asOf: testAsOf)
        #expect(String(world.digest, radix: 16) == "e54472d3b3b2f884")
    }

    @Test func otherParametersGiveOtherWorlds() {
        let base = SimulatedWorld(users: 300, seed: 42, asOf: testAsOf).digest
        #expect(SimulatedWorld(users: 300, seed: 43, asOf: testAsOf).digest != base)
        #expect(SimulatedWorld(users: 300, seed: 42, asOf: testAsOf.addingTimeInterval(1)).digest != base)
        #expect(SimulatedWorld(users: 300, seed: 42, asOf: testAsOf, environment: .sandbox).digest != base)
    }

    @Test func receiptCountParameterGivesRoughlyThatManyReceipts() {
        let world = SimulatedWorld(receipts: 20_000, seed: 5, asOf: testAsOf)
        var receipts = 0
        world.forEachUnit { unit in receipts += unit.users.reduce(0) { $0 + $1.receipts.count } }
        // Random scenario draws: within 3 % of the request.
        #expect(abs(receipts - 20_000) < 600, "\(receipts) receipts for 20,000 asked")
    }

    @Test func transactionIDsAreUniqueAcrossTheWorld() {
        let (seen, duplicates) = TestWorlds.transactionIDs(TestWorlds.acceptance)
        #expect(duplicates == 0)
        #expect(seen.count > 5_000)
    }
}
