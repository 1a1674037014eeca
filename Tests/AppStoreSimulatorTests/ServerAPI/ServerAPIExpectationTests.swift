import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// `simulator seed --backend server-api`: receipt rows expect exactly what they expect under
/// verify-receipt (CONTRACT §9), except a deleted Apple account (verifyReceipt's 21010 is `invalid`, the
/// Server API's 4040001 a permanent `unverified`: rules.md reads the two services' answers differently);
/// StoreKit 2 rows expect what Apple's state at `asOf` says.
@Suite struct ServerAPIExpectationTests {
    static let world = SimulatedWorld(users: 2000, seed: 5, asOf: testAsOf, includesStoreKit2Users: true)

    /// The receipt scenarios whose expectation differs between the backends (docs/simulator.md).
    static let receiptScenariosThatDiffer: Set<WorldScenario> = [
        .deletedAccount, .deletedAccountLifetime, .appleSignedIDLost,
    ]

    @Test func receiptUsersExpectTheSameUnderBothBackendsSaveDeletedAccountsAndStoreKit2UsersDiffer() {
        let verifyReceipt = ExpectationDeriver.derive(world: Self.world)
        let serverAPI = ExpectationDeriver.derive(
            world: Self.world, assumptions: RunAssumptions(backend: .serverAPI))
        var scenarioByUser: [String: WorldScenario] = [:]
        Self.world.forEachUnit { unit in
            for user in unit.users { scenarioByUser[user.id] = user.scenario }
        }
        func alike(_ userID: String) -> Bool {
            guard let scenario = scenarioByUser[userID] else { return false }
            return !scenario.isStoreKit2 && !Self.receiptScenariosThatDiffer.contains(scenario)
        }

        let receiptCorrections = verifyReceipt.corrections.filter { alike($0.userID) }
        #expect(receiptCorrections == serverAPI.corrections.filter { alike($0.userID) })
        #expect(verifyReceipt.flags.filter { alike($0.userID) } == serverAPI.flags.filter { alike($0.userID) })
        #expect(receiptCorrections.count > 100)

        // Who differs, and how: what `report --compare` of the two backends' dry runs should list.
        let changed =
            Set(serverAPI.corrections).symmetricDifference(verifyReceipt.corrections).map(\.userID)
            + Set(serverAPI.flags).symmetricDifference(verifyReceipt.flags).map(\.userID)
        let scenarios = Set(changed.compactMap { scenarioByUser[$0] })
        #expect(
            scenarios
                == [
                    .storeKit2RowLonger, .storeKit2Tampered, .storeKit2StaleAfterRevoke, .deletedAccount,
                    .deletedAccountLifetime, .appleSignedIDLost, .storeKit2AppleSignedIDLost,
                ])
        for correction in Set(serverAPI.corrections).subtracting(verifyReceipt.corrections) {
            #expect(scenarioByUser[correction.userID] == .storeKit2RowLonger, "\(correction)")
            #expect(correction.action == "shorten")
        }
        // The Server API never revokes what verifyReceipt keeps, save the row a JWS made longer.
        for correction in Set(verifyReceipt.corrections).subtracting(serverAPI.corrections) {
            #expect(
                [.deletedAccount, .deletedAccountLifetime, .storeKit2RowLonger].contains(
                    scenarioByUser[correction.userID]),
                "\(correction)")
        }
    }

    @Test(arguments: WorldScenario.allCases)
    func derivationMatchesTheIntentUnderTheServerAPI(scenario: WorldScenario) throws {
        let world = scenario.isStoreKit2 ? TestWorlds.storeKit2 : TestWorlds.small
        let (unit, user) = try #require(TestWorlds.firstOfEachScenario(world)[scenario])
        let (corrections, flags) = TestWorlds.derived(
            unit, user, in: world, assumptions: RunAssumptions(backend: .serverAPI))
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

    /// The refunded amount is stated for the Server API only, in the shape of `run --json`'s
    /// `refundedAmount`; the unverified rows with their kind in both files.
    @Test func theFileStatesTheRefundedAmountAndTheKindsOfUnverified() throws {
        let world = TestWorlds.storeKit2
        let plain = try #require(
            try JSONSerialization.jsonObject(with: ExpectationDeriver.derive(world: world).jsonData()) as? [String: Any]
        )
        #expect(plain["refunded_amount"] == nil)
        let expected = ExpectationDeriver.derive(world: world, assumptions: RunAssumptions(backend: .serverAPI))
        let json = try #require(try JSONSerialization.jsonObject(with: expected.jsonData()) as? [String: Any])
        let refunded = try #require(json["refunded_amount"] as? [[String: Any]])
        #expect(refunded.count == 1)
        #expect(refunded.first?["currency"] as? String == "USD")
        let amount = try #require(refunded.first?["amount"] as? String)
        #expect(Decimal(string: amount).map { $0 > 0 } == true)
        #expect((refunded.first?["transactions"] as? Int).map { $0 > 0 } == true)
        for file in [plain, json] {
            let unverified = try #require(file["unverified"] as? [[String: Any]])
            #expect(!unverified.isEmpty)
            #expect(unverified.allSatisfy { Set($0.keys) == ["user_id", "receipt_id", "kind"] })
            #expect(unverified.allSatisfy { ["permanent", "transient"].contains($0["kind"] as? String ?? "") })
        }
    }
}
