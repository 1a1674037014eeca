import AppStoreReceipts
import Foundation
import Postgres
import Reconciliation
import TestSupport
import Testing

/// CONTRACT §7, "every run is judged, whatever its size": the real engine against a throwaway PostgreSQL,
/// Apple scripted per user. A night smaller than the breaker's window is judged on all of its users
/// before it writes a take-away; the binary's side (exit codes, both backends) is in the CLI's
/// `SmallNightSafetyTests`.
@Suite struct SmallNightBreakerTests {
    typealias Engine = EngineContractTests

    /// A mapping mistake on a small night: 46 of 63 users would be revoked.
    @Test func aSmallNightThatWouldRevokeMostUsersWritesNoRevokeAndStops() throws {
        try TestDatabase.with { database in
            try Engine.seed(database, users: 63, entitled: true)
            let apple = ScriptedAppleBackend(script: { userID in
                Engine.bought(userID, refunded: Int(userID.suffix(4))! < 46)
            })
            let outcome = try Engine.run(database, apple)
            guard case .breaker(let reason) = outcome.end else {
                Issue.record("the run ended \(outcome.end), not by a breaker")
                return
            }
            #expect(reason.contains("46 of 63 users would be revoked") && reason.contains("--max-revoke-ratio"))
            #expect(outcome.exitCode == .unavailable)
            let db = try database.connect()
            #expect(try Engine.row(outcome.summary.runID, on: db).status == "aborted")
            #expect(try Engine.count("SELECT count(*) FROM entitlements WHERE active", on: db) == 63)
            #expect(try Engine.count("SELECT count(*) FROM recon_corrections WHERE action = 'revoke'", on: db) == 0)
        }
    }

    /// Two refunds among 40 users is a night like any other: judged whole, then written.
    @Test func aSmallNightWithAFewRefundsRevokesThemOnceJudged() throws {
        try TestDatabase.with { database in
            try Engine.seed(database, users: 40, entitled: true)
            let apple = ScriptedAppleBackend(script: { userID in
                Engine.bought(userID, refunded: Int(userID.suffix(4))! < 2)
            })
            let outcome = try Engine.run(database, apple)
            #expect(outcome.end == .completed)
            let db = try database.connect()
            #expect(
                try Engine.users("SELECT user_id FROM entitlements WHERE NOT active", on: db)
                    == [Engine.user(0), Engine.user(1)])
            #expect(outcome.summary.corrections[.revoke]?[.refund] == 2)
            #expect(outcome.summary.usersProcessed == 40)
        }
    }

    /// On a large night the first window's take-aways wait for its judgement too: a night whose every
    /// user is refunded revokes nobody, where it used to revoke the first window's users before the
    /// breaker could speak.
    @Test func aLargeNightRevokesNobodyBeforeItsFirstWindowIsJudged() throws {
        try TestDatabase.with { database in
            try Engine.seed(database, users: 400, entitled: true)
            let apple = ScriptedAppleBackend(script: { Engine.bought($0, refunded: true) })
            let outcome = try Engine.run(database, apple)
            guard case .breaker = outcome.end else {
                Issue.record("the run ended \(outcome.end), not by a breaker")
                return
            }
            #expect(
                try Engine.count("SELECT count(*) FROM entitlements WHERE NOT active", on: try database.connect()) == 0)
        }
    }

    /// Every request refused on a night of 21 users: Apple unreachable, not a normal night.
    @Test func aSmallNightOfTransientFailuresStopsAsAppleUnreachable() throws {
        try TestDatabase.with { database in
            try Engine.seed(database, users: 21, entitled: true)
            let apple = ScriptedAppleBackend(script: { _ in
                ScriptedAppleBackend.Answer(.unverified(.transient, detail: "HTTP 503 from Apple"))
            })
            let outcome = try Engine.run(database, apple)
            guard case .breaker(let reason) = outcome.end else {
                Issue.record("the run ended \(outcome.end), not by a breaker")
                return
            }
            #expect(reason.contains("Apple unreachable or refusing: 21 of 21 receipts transiently unverified"))
            #expect(outcome.exitCode == .unavailable)
            #expect(try Engine.count("SELECT count(*) FROM recon_results", on: try database.connect()) == 0)
        }
    }

    /// Deleted Apple accounts are Apple's answer: flagged and counted apart, and the night is a success.
    @Test func permanentlyUnverifiedReceiptsAloneEndTheNightCompleted() throws {
        try TestDatabase.with { database in
            try Engine.seed(database, users: 30, entitled: true)
            let apple = ScriptedAppleBackend(script: { userID in
                Int(userID.suffix(4))! < 3
                    ? ScriptedAppleBackend.Answer(.unverified(.permanent, detail: "Apple no longer finds the account"))
                    : Engine.bought(userID)
            })
            let first = try Engine.run(database, apple)
            #expect(first.end == .completed)
            #expect(first.exitCode == .success)
            #expect(first.summary.unverified == 3)
            #expect(first.summary.permanentlyUnverified == 3 && first.summary.transientlyUnverified == 0)
            #expect(first.summary.newlyPermanentlyUnverified == 3)
            #expect(first.summary.flags[.unverified] == 3)
            // The next night finds them again: counted, no longer new.
            let second = try Engine.run(database, apple)
            #expect(second.exitCode == .success)
            #expect(second.summary.permanentlyUnverified == 3 && second.summary.newlyPermanentlyUnverified == 0)
        }
    }

    /// A transient failure among answers is what exit 1 is for.
    @Test func aFewTransientFailuresEndTheNightPartial() throws {
        try TestDatabase.with { database in
            try Engine.seed(database, users: 30, entitled: true)
            let apple = ScriptedAppleBackend(script: { userID in
                Int(userID.suffix(4))! < 2
                    ? ScriptedAppleBackend.Answer(.unverified(.transient, detail: "HTTP 503 from Apple"))
                    : Engine.bought(userID)
            })
            let outcome = try Engine.run(database, apple)
            #expect(outcome.end == .partial)
            #expect(outcome.exitCode == .someUnverified)
            #expect(outcome.summary.transientlyUnverified == 2)
        }
    }
}
