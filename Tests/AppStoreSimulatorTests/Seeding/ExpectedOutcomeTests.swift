import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// The expected file: what a correct `run --older-than 0 --as-of T` must correct and flag, derived
/// from the world and the rules (CONTRACT §5, docs/reconciliation-rules.md).
@Suite struct ExpectedOutcomeTests {
    static let acceptance = ExpectationDeriver.derive(world: TestWorlds.acceptance)
    static let actions = ["extend", "grant", "revoke", "shorten"]
    static let productionFlags = [
        "bundle_mismatch", "entitlement_without_receipt", "family_revoked", "invalid_receipt", "refunded",
        "sandbox_in_production", "shared_transaction", "unknown_product", "unverified",
    ]

    /// Every correction action and every flag kind of CONTRACT §4 a production run can raise.
    /// `production_in_sandbox` cannot come from a production run: the rules flag a misrouted receipt by
    /// the environment the database serves, so it comes from a database that serves the sandbox (below).
    @Test func theTwoThousandUserFileHasEveryActionAndEveryProductionFlag() {
        let outcome = Self.acceptance
        #expect(Set(outcome.corrections.map(\.action)) == Set(Self.actions))
        #expect(Set(outcome.flags.map(\.kind)) == Set(Self.productionFlags))
        for action in Self.actions {
            #expect(outcome.corrections.filter { $0.action == action }.count >= 5, "few \(action)s")
        }
    }

    @Test func aStagingDatabaseGetsProductionInSandboxFlags() {
        let outcome = ExpectationDeriver.derive(
            world: SimulatedWorld(users: 2000, seed: 1, asOf: testAsOf, environment: .sandbox),
            assumptions: RunAssumptions(environment: .sandbox))
        let kinds = Set(outcome.flags.map(\.kind))
        #expect(kinds.contains("production_in_sandbox"))
        #expect(!kinds.contains("sandbox_in_production"))
        #expect(
            kinds == Set(Self.productionFlags).subtracting(["sandbox_in_production"]).union(["production_in_sandbox"]))
        #expect(Set(outcome.corrections.map(\.action)) == Set(Self.actions))
    }

    /// The file must describe a run that completes: CONTRACT §7's breakers (10 % unverified, 20 % users
    /// revoked, checked from 100 receipts on) must not trip at any point in user order.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theRunItDescribesStaysClearOfTheBreakers(seed: UInt64) {
        let outcome = ExpectationDeriver.derive(world: SimulatedWorld(users: 2000, seed: seed, asOf: testAsOf))
        #expect(outcome.counts.peakRevokeRatio < 0.15, "\(outcome.counts)")
        #expect(outcome.counts.peakUnverifiedRatio < 0.05, "\(outcome.counts)")
        #expect(outcome.counts.unverifiedReceipts >= 1)
    }

    /// The project's client asks with exclude-old-transactions; the world is built so that the truth is
    /// the same with every renewal listed.
    @Test func theExpectationDoesNotDependOnExcludeOldTransactions() {
        let all = ExpectationDeriver.derive(
            world: TestWorlds.acceptance, assumptions: RunAssumptions(excludeOldTransactions: false))
        #expect(all.corrections == Self.acceptance.corrections)
        #expect(all.flags == Self.acceptance.flags)
    }

    @Test func theFileIsSortedDeterministicJSON() throws {
        let data = Self.acceptance.jsonData()
        #expect(data == ExpectationDeriver.derive(world: TestWorlds.acceptance).jsonData())
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["as_of"] as? String == "2026-11-22T03:00:00Z")
        #expect(json["bundle_ids"] as? [String] == [WorldCatalog.appBundleID])
        #expect(
            json["app_apple_ids"] as? [String: Int]
                == [WorldCatalog.appBundleID: 1_450_637_621, WorldCatalog.cloneBundleID: 1_450_637_699])
        #expect(json["environment"] as? String == "production")
        #expect(json["sandbox_policy"] as? String == "revoke")
        let corrections = try #require(json["corrections"] as? [[String: Any]])
        let flags = try #require(json["flags"] as? [[String: Any]])
        #expect(corrections.count == Self.acceptance.corrections.count)
        #expect(flags.count == Self.acceptance.flags.count)
        #expect(corrections.allSatisfy { Set($0.keys) == ["user_id", "entitlement", "action"] })
        #expect(flags.allSatisfy { Set($0.keys) == ["user_id", "kind", "receipt_id"] })
        #expect(Self.acceptance.corrections == Self.acceptance.corrections.sorted())
        #expect(Self.acceptance.flags == Self.acceptance.flags.sorted())
        let perUser = Self.acceptance.flags.filter { $0.receiptID == nil }
        #expect(!perUser.isEmpty && perUser.allSatisfy { $0.kind == "entitlement_without_receipt" })
    }

    @Test func withoutABundleCheckTheCloneReceiptCounts() {
        let outcome = ExpectationDeriver.derive(world: TestWorlds.small, assumptions: RunAssumptions(bundleIDs: nil))
        let clones = Set(TestWorlds.users(TestWorlds.small).filter { $0.user.scenario == .otherBundle }.map(\.user.id))
        #expect(!clones.isEmpty)
        #expect(!outcome.flags.contains { $0.kind == "bundle_mismatch" })
        #expect(!outcome.corrections.contains { clones.contains($0.userID) })
    }

    @Test func underTheFlagPolicyOtherEnvironmentPurchasesCount() {
        let outcome = ExpectationDeriver.derive(
            world: TestWorlds.small, assumptions: RunAssumptions(sandboxPolicy: .flag))
        let misrouted = Set(
            TestWorlds.users(TestWorlds.small).filter { $0.user.scenario == .otherEnvironmentReceipt }.map(\.user.id))
        #expect(!misrouted.isEmpty)
        #expect(!outcome.corrections.contains { misrouted.contains($0.userID) })
        #expect(outcome.flags.contains { misrouted.contains($0.userID) && $0.kind == "sandbox_in_production" })
    }

    /// `shared_transaction` is decided per unit because accounts never span units; over the whole world
    /// the same receipts come out.
    @Test func sharedTransactionsDecidedPerUnitMatchAWorldWideCheck() {
        let world = TestWorlds.acceptance
        let answerer = AppleAnswerer(world: world)
        var owners: [String: Set<String>] = [:]
        var receiptsByUser: [(user: String, receiptID: Int64, originals: Set<String>)] = []
        var next: Int64 = 1
        world.forEachUnit { unit in
            let ids = ExpectationDeriver.receiptIDs(for: unit, startingAt: &next)
            for (position, user) in unit.users.enumerated() {
                for (row, receipt) in user.receipts.enumerated() {
                    switch ExpectationDeriver.outcome(
                        of: receipt.slot, in: unit, answerer: answerer, assumptions: RunAssumptions())
                    {
                    case .valid(let answer), .misrouted(let answer):
                        let originals = Set(answer.transactions.map(\.transaction.originalTransactionID))
                        for original in originals { owners[original, default: []].insert(user.id) }
                        receiptsByUser.append((user.id, ids[position][row], originals))
                    default:
                        break
                    }
                }
            }
        }
        let shared = Set(
            receiptsByUser.filter { entry in entry.originals.contains { owners[$0]!.count > 1 } }.map(\.receiptID))
        let derived = Set(Self.acceptance.flags.filter { $0.kind == "shared_transaction" }.compactMap(\.receiptID))
        #expect(shared == derived)
        #expect(!shared.isEmpty)
    }

    /// A row of another source beside an entitlement Apple says is active would leave the rules open
    /// (grant over a row the job must not touch?); the world never builds one.
    @Test func noOtherSourceRowCompetesWithAnAppleEntitlement() {
        let outcome = ExpectationDeriver.derive(world: TestWorlds.acceptance)
        var otherSource = Set<String>()
        for (_, user) in TestWorlds.users(TestWorlds.acceptance) {
            for row in user.entitlements where row.source != "app_store" {
                otherSource.insert("\(user.id)/\(row.entitlement)")
            }
        }
        #expect(!otherSource.isEmpty)
        #expect(!outcome.corrections.contains { otherSource.contains("\($0.userID)/\($0.entitlement)") })
    }
}
