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
}
