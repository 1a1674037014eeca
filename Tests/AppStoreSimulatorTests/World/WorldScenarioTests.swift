import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// Each scenario leads a correct run to what the scenario says (`WorldScenario.intended`): the
/// generic derivation from Apple's answers and the rules agrees with the intent of every case.
/// StoreKit 2 scenarios are checked in worlds that have them (`simulator seed --pki-dir`).
@Suite struct WorldScenarioTests {
    static let cases = TestWorlds.firstOfEachScenario(TestWorlds.small)
    static let storeKit2Cases = TestWorlds.firstOfEachScenario(TestWorlds.storeKit2)

    @Test func everyScenarioOccursInASmallWorld() {
        let missing = WorldScenario.receiptScenarios.filter { Self.cases[$0] == nil }
        #expect(missing.isEmpty, "scenarios missing from a 200-user world: \(missing)")
        #expect(Self.cases.keys.filter(\.isStoreKit2).isEmpty, "StoreKit 2 users in a world without them")
    }

    @Test func everyScenarioOccursInAWorldWithStoreKit2Users() {
        let missing = WorldScenario.allCases.filter { Self.storeKit2Cases[$0] == nil }
        #expect(missing.isEmpty, "scenarios missing from a 300-user world with StoreKit 2 users: \(missing)")
    }

    @Test(arguments: WorldScenario.allCases)
    func derivationMatchesTheScenarioIntent(scenario: WorldScenario) throws {
        let world = scenario.isStoreKit2 ? TestWorlds.storeKit2 : TestWorlds.small
        let (unit, user) = try #require((scenario.isStoreKit2 ? Self.storeKit2Cases : Self.cases)[scenario])
        let (corrections, flags) = TestWorlds.derived(unit, user, in: world, assumptions: RunAssumptions())
        #expect(corrections == scenario.intended.corrections.sorted())
        #expect(flags == scenario.intended.flags.sorted())
    }

    static let stagingCases = TestWorlds.firstOfEachScenario(TestWorlds.staging)
    static let storeKit2StagingCases = TestWorlds.firstOfEachScenario(TestWorlds.storeKit2Staging)

    /// The same intents in a staging world (a database serving the sandbox, 5-minute sandbox months),
    /// with the misrouting flag named after that environment.
    @Test(arguments: WorldScenario.allCases)
    func aStagingWorldMeansTheSame(scenario: WorldScenario) throws {
        let world = scenario.isStoreKit2 ? TestWorlds.storeKit2Staging : TestWorlds.staging
        let (unit, user) = try #require(
            (scenario.isStoreKit2 ? Self.storeKit2StagingCases : Self.stagingCases)[scenario])
        let (corrections, flags) = TestWorlds.derived(
            unit, user, in: world, assumptions: RunAssumptions(environment: .sandbox))
        let intended = scenario.intended.flags.map { $0 == "sandbox_in_production" ? "production_in_sandbox" : $0 }
        #expect(corrections == scenario.intended.corrections.sorted())
        #expect(flags == intended.sorted())
    }
}
