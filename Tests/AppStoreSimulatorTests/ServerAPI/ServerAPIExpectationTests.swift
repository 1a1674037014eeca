import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// `simulator seed --backend server-api`: receipt rows expect exactly what they expect under
/// verify-receipt (CONTRACT §9), StoreKit 2 rows what Apple's state at `asOf` says.
@Suite struct ServerAPIExpectationTests {
    static let world = SimulatedWorld(users: 2000, seed: 5, asOf: testAsOf, includesStoreKit2Users: true)

    @Test func receiptUsersExpectTheSameUnderBothBackendsAndOnlyStoreKit2UsersDiffer() {
        let verifyReceipt = ExpectationDeriver.derive(world: Self.world)
        let serverAPI = ExpectationDeriver.derive(
            world: Self.world, assumptions: RunAssumptions(backend: .serverAPI))
        var scenarioByUser: [String: WorldScenario] = [:]
        Self.world.forEachUnit { unit in
            for user in unit.users { scenarioByUser[user.id] = user.scenario }
        }
        func isStoreKit2(_ userID: String) -> Bool { scenarioByUser[userID]?.isStoreKit2 == true }

        let receiptCorrections = verifyReceipt.corrections.filter { !isStoreKit2($0.userID) }
        #expect(receiptCorrections == serverAPI.corrections.filter { !isStoreKit2($0.userID) })
        #expect(
            verifyReceipt.flags.filter { !isStoreKit2($0.userID) } == serverAPI.flags.filter { !isStoreKit2($0.userID) }
        )
        #expect(receiptCorrections.count > 100)

        // The StoreKit 2 users that differ are those whose row outlives the current period.
        let changed = Set(serverAPI.corrections).symmetricDifference(verifyReceipt.corrections)
        #expect(!changed.isEmpty)
        for correction in changed {
            #expect(scenarioByUser[correction.userID] == .storeKit2RowLonger, "\(correction)")
            #expect(correction.action == "shorten")
        }
    }

    @Test(arguments: WorldScenario.allCases)
    func derivationMatchesTheIntentUnderTheServerAPI(scenario: WorldScenario) throws {
        let world = scenario.isStoreKit2 ? TestWorlds.storeKit2 : TestWorlds.small
        let (unit, user) = try #require(TestWorlds.firstOfEachScenario(world)[scenario])
        var next: Int64 = 1
        let ids = ExpectationDeriver.receiptIDs(for: unit, startingAt: &next)
        let result = ExpectationDeriver.derive(
            unit: unit, receiptIDs: ids, answerer: AppleAnswerer(world: world),
            assumptions: RunAssumptions(backend: .serverAPI))
        let corrections = result.corrections.filter { $0.userID == user.id }.map { "\($0.entitlement):\($0.action)" }
        let flags = result.flags.filter { $0.userID == user.id }.map(\.kind)
        #expect(corrections.sorted() == scenario.intended(backend: .serverAPI).corrections.sorted())
        #expect(flags.sorted() == scenario.intended(backend: .serverAPI).flags.sorted())
    }

    @Test func theFileStatesTheBackendOnlyForTheServerAPI() {
        let world = TestWorlds.storeKit2
        let plain = String(decoding: ExpectationDeriver.derive(world: world).jsonData(), as: UTF8.self)
        #expect(!plain.contains("backend"))
        let expected = ExpectationDeriver.derive(world: world, assumptions: RunAssumptions(backend: .serverAPI))
        let text = String(decoding: expected.jsonData(), as: UTF8.self)
        #expect(text.contains("\"backend\": \"server-api\""))
        #expect(expected.runCommand.hasSuffix("--backend server-api"))
    }
}
