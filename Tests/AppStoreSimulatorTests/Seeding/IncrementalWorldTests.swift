import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// The incremental world (`--changed-fraction`): the same parameters give the same changed and missed
/// users; only missed users' notifications failed; the expectation corrects exactly the missed users,
/// and nothing when the app missed nothing (delivered changes and quiet users are Apple-consistent).
@Suite struct IncrementalWorldTests {
    static let since = Int64(testAsOf.timeIntervalSince1970 * 1000) - SubscriptionClock.millisecondsPerDay

    static func world(users: Int = 600, changed: Double = 0.1, missed: Double = 0.5, seed: UInt64 = 21)
        -> SimulatedWorld
    {
        SimulatedWorld(
            SimulatedWorld.Parameters(
                users: users, seed: seed, asOfMs: Int64(testAsOf.timeIntervalSince1970 * 1000),
                includesStoreKit2Users: true,
                incremental: IncrementalWorld(changedFraction: changed, sinceMs: since, missedFraction: missed)))
    }

    static func plans(_ world: SimulatedWorld) -> [IncrementalWorld.UserPlan] {
        (0..<world.userCount).map { world.parameters.incremental!.plan(seed: world.parameters.seed, userIndex: $0) }
    }

    static func serverAPI(_ world: SimulatedWorld) -> ExpectedOutcome {
        ExpectationDeriver.derive(world: world, assumptions: RunAssumptions(backend: .serverAPI))
    }

    @Test func theExpectationCorrectsExactlyTheMissedUsers() {
        let world = Self.world()
        let plans = Self.plans(world)
        let missed = Set(plans.indices.filter { plans[$0].change != nil && plans[$0].missed }.map(WorldUser.id))
        let expected = Self.serverAPI(world)
        #expect(!missed.isEmpty)
        #expect(Set(expected.corrections.map(\.userID)) == missed, "\(expected.corrections.prefix(8))")
        // Every kind of missed change is corrected, each in its own way.
        let actions = Set(expected.corrections.map { "\($0.entitlement):\($0.action)" })
        #expect(actions.count >= 3, "\(actions)")
    }

    /// The forced users 1…10 (each change kind, missed then delivered) whatever the shares: with no
    /// other miss, only the five forced missed users are corrected, one per kind; with every other
    /// change missed, every changed user but the five forced delivered ones.
    @Test func nothingToCorrectWhenTheAppMissedNothingAndEverythingWhenItMissedAll() {
        let none = Self.serverAPI(Self.world(missed: 0)).corrections
        #expect(Set(none.map(\.userID)) == Set([1, 3, 5, 7, 9].map(WorldUser.id)))
        #expect(
            Set(none.map { "\($0.entitlement):\($0.action)" })
                == ["premium:extend", "premium:revoke", "pro:revoke", "premium:grant"])
        let all = Self.world(missed: 1)
        let plans = Self.plans(all)
        let changed = Set(plans.indices.filter { plans[$0].change != nil }.map(WorldUser.id))
        #expect(
            Set(Self.serverAPI(all).corrections.map(\.userID))
                == changed.subtracting([2, 4, 6, 8, 10].map(WorldUser.id)))
    }

    @Test func failedDeliveriesAreTheMissedUsersChangesOnly() {
        let world = Self.world()
        let plans = Self.plans(world)
        var failedUsers = Set<Int>()
        var notifiedUsers = Set<Int>()
        for index in 0..<world.unitCount {
            for notification in world.notifications(of: world.unit(index)) {
                guard let account = notification.account, account != WorldNotification.orphanAccount else { continue }
                let user = index * 2 + account
                if notification.signedMs > Self.since {
                    notifiedUsers.insert(user)
                } else {
                    #expect(!notification.deliveryFailed, "before since, everything was delivered")
                }
                if notification.deliveryFailed { failedUsers.insert(user) }
            }
        }
        let changed = Set(plans.indices.filter { plans[$0].change != nil })
        let missed = Set(changed.filter { plans[$0].missed })
        #expect(failedUsers == missed)
        // Changed users, and user 0 (named by the world's unknown-type notification): no quiet user.
        #expect(notifiedUsers == changed.union([0]))
        let share = Double(missed.count) / Double(changed.count)
        #expect(share > 0.3 && share < 0.7, "about half the changed users were missed: \(share)")
    }

    @Test func theChangedFractionIsDeterministic() {
        let first = Self.plans(Self.world(users: 2000, changed: 0.05))
        #expect(first == Self.plans(Self.world(users: 2000, changed: 0.05)))
        let changed = first.filter { $0.change != nil }.count
        #expect(changed > 60 && changed < 150, "about 5 % of 2000 (+ the forced ones): \(changed)")
        // Another missed share keeps the changed users and their changes.
        let other = Self.plans(Self.world(users: 2000, changed: 0.05, missed: 0.9))
        #expect(other.map(\.change) == first.map(\.change))
        #expect(Self.plans(Self.world(users: 2000, changed: 0.05, seed: 22)).map(\.change) != first.map(\.change))
        #expect(Self.world().unit(3) == Self.world().unit(3))
    }
}
