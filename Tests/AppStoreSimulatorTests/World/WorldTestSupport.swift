import AppStoreReceipts
import Foundation

@testable import AppStoreSimulator

/// The instant the test worlds are seen at: fixed, so failures reproduce.
let testAsOf = Date(timeIntervalSince1970: 1_795_316_400)  // 2026-11-22T03:00:00Z

/// Worlds are cheap to describe and deterministic: tests share a few.
enum TestWorlds {
    static let small = SimulatedWorld(users: 200, seed: 7, asOf: testAsOf)
    static let acceptance = SimulatedWorld(users: 2000, seed: 1, asOf: testAsOf)
    static let staging = SimulatedWorld(users: 400, seed: 3, asOf: testAsOf, environment: .sandbox)
    /// Worlds with StoreKit 2 users (`simulator seed --pki-dir`), production and staging.
    static let storeKit2 = SimulatedWorld(users: 300, seed: 11, asOf: testAsOf, includesStoreKit2Users: true)
    static let storeKit2Staging = SimulatedWorld(
        users: 400, seed: 13, asOf: testAsOf, environment: .sandbox, includesStoreKit2Users: true)

    /// Every user of `world` with its unit.
    static func users(_ world: SimulatedWorld) -> [(unit: WorldUnit, user: WorldUser)] {
        var result: [(WorldUnit, WorldUser)] = []
        world.forEachUnit { unit in
            for user in unit.users { result.append((unit, user)) }
        }
        return result
    }

    /// The first user of each scenario in `world`.
    static func firstOfEachScenario(_ world: SimulatedWorld) -> [WorldScenario: (unit: WorldUnit, user: WorldUser)] {
        var result: [WorldScenario: (WorldUnit, WorldUser)] = [:]
        for (unit, user) in users(world) where result[user.scenario] == nil {
            result[user.scenario] = (unit, user)
        }
        return result
    }

    /// What the deriver expects for `user` of `unit` in `world` under `assumptions`: the user's corrections
    /// (`entitlement:action`) and flags (their kinds), each sorted.
    static func derived(
        _ unit: WorldUnit, _ user: WorldUser, in world: SimulatedWorld, assumptions: RunAssumptions
    ) -> (corrections: [String], flags: [String]) {
        var next: Int64 = 1
        let ids = ExpectationDeriver.receiptIDs(for: unit, startingAt: &next)
        let result = ExpectationDeriver.derive(
            unit: unit, receiptIDs: ids, answerer: AppleAnswerer(world: world), assumptions: assumptions)
        let corrections = result.corrections.filter { $0.userID == user.id }.map { "\($0.entitlement):\($0.action)" }
        let flags = result.flags.filter { $0.userID == user.id }.map(\.kind)
        return (corrections.sorted(), flags.sorted())
    }

    /// Every transaction id of `world`'s accounts, and how many times one stood again.
    static func transactionIDs(_ world: SimulatedWorld) -> (seen: Set<String>, duplicates: Int) {
        var seen = Set<String>()
        var duplicates = 0
        world.forEachUnit { unit in
            for account in unit.accounts {
                for transaction in account.transactions where !seen.insert(transaction.transactionID).inserted {
                    duplicates += 1
                }
            }
        }
        return (seen, duplicates)
    }
}
