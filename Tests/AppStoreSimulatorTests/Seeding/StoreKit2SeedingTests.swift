import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import AppStoreSimulator

/// `simulator seed --pki-dir`: StoreKit 2 users in the database, signed by the chain written beside it,
/// and their expectation; without it, the world and its file are what they always were.
@Suite struct StoreKit2SeedingTests {
    static let world = TestWorlds.storeKit2

    @Test func seededSignedRowsVerifyUnderTheWrittenRootExceptTamperedOnes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-seed-pki-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let chain = try SeedSigningChain.create(in: directory.appendingPathComponent("new"), asOfMs: Self.world.asOfMs)
        let root = try X509Certificate(
            der: Array(try Data(contentsOf: directory.appendingPathComponent("new/\(SigningChain.rootFile)"))))
        let verifier = SignedDataVerifier(
            anchors: [TrustAnchor(root)], acceptedBundleIDs: [WorldCatalog.appBundleID], environment: .production)

        // Which receipt id holds which kind of row, in seeding order.
        var scenarioByReceiptID: [Int64: WorldScenario] = [:]
        var next: Int64 = 1
        Self.world.forEachUnit { unit in
            let ids = ExpectationDeriver.receiptIDs(for: unit, startingAt: &next)
            for (position, user) in unit.users.enumerated() {
                for id in ids[position] { scenarioByReceiptID[id] = user.scenario }
            }
        }

        try TestDatabase.with { database in
            let connection = try database.connect()
            let summary = try WorldSeeder.seed(Self.world, into: connection, signingChain: chain)
            #expect(summary.expected == ExpectationDeriver.derive(world: Self.world))
            let rows = try connection.query("SELECT id, receipt_data FROM receipts ORDER BY id")
            var verdicts: [WorldScenario: Set<String>] = [:]
            for row in rows {
                let id = try row.decode(at: 0, as: Int64.self)
                let scenario = try #require(scenarioByReceiptID[id])
                let data = try row.decode(at: 1, as: String.self)
                // A StoreKit 2 user's app receipt beside its JWS (`storeKit2StaleRefundReversed`) is no JWS.
                guard scenario.isStoreKit2, SignedDataVerifier.looksLikeJWS(data.utf8) else { continue }
                let failure = verifier.verify(Array(data.utf8)).failure
                let verdict: String
                switch failure {
                case nil: verdict = "valid"
                case .badSignature?: verdict = "bad signature"
                case .wrongEnvironment?: verdict = "wrong environment"
                case .bundleNotAccepted?: verdict = "bundle not accepted"
                case let other?: verdict = "\(other)"
                }
                verdicts[scenario, default: []].insert(verdict)
            }
            #expect(Set(verdicts.keys) == Set(WorldScenario.allCases.filter(\.isStoreKit2)))
            for (scenario, found) in verdicts {
                switch scenario {
                case .storeKit2Tampered: #expect(found == ["bad signature"])
                case .storeKit2OtherEnvironment: #expect(found == ["wrong environment"])
                case .storeKit2OtherBundle: #expect(found == ["bundle not accepted"])
                default: #expect(found == ["valid"], "\(scenario)")
                }
            }
        }
    }

    @Test func aWorldWithStoreKit2UsersIsNotSeededUnsigned() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            #expect(throws: WorldSeeder.SeedError.signingChainRequired) {
                try WorldSeeder.seed(Self.world, into: connection)
            }
        }
    }

    /// Without `--pki-dir` nothing changes: the same users (the pinned digest holds that), and an expected
    /// file without a StoreKit 2 key or a root to trust.
    @Test func aWorldWithoutStoreKit2UsersWritesTheFileItAlwaysDid() throws {
        let plain = ExpectationDeriver.derive(world: TestWorlds.small)
        let text = String(decoding: plain.jsonData(), as: UTF8.self)
        #expect(!text.contains("store_kit_2"))
        #expect(!plain.runCommand.contains("--apple-root-certificate"))
        #expect(SimulatedWorld(users: 200, seed: 7, asOf: testAsOf).digest == TestWorlds.small.digest)
        #expect(
            SimulatedWorld(users: 200, seed: 7, asOf: testAsOf, includesStoreKit2Users: true).digest
                != TestWorlds.small.digest)

        let signed = ExpectationDeriver.derive(
            world: Self.world, assumptions: RunAssumptions(appleRootCertificate: "pki/apple-root.der"))
        let json = try #require(try JSONSerialization.jsonObject(with: signed.jsonData()) as? [String: Any])
        let world = try #require(json["world"] as? [String: Any])
        #expect(world["store_kit_2_users"] as? Bool == true)
        #expect((json["run"] as? String)?.hasSuffix("--apple-root-certificate pki/apple-root.der") == true)
    }

    /// Under `--sandbox-policy flag`, a row signed in the other environment counts: flagged, not revoked.
    @Test func underTheFlagPolicyOtherEnvironmentSignedRowsCount() {
        let outcome = ExpectationDeriver.derive(world: Self.world, assumptions: RunAssumptions(sandboxPolicy: .flag))
        let users = Set(
            TestWorlds.users(Self.world).filter { $0.user.scenario == .storeKit2OtherEnvironment }.map(\.user.id))
        #expect(!users.isEmpty)
        #expect(!outcome.corrections.contains { users.contains($0.userID) })
        #expect(outcome.flags.filter { users.contains($0.userID) }.allSatisfy { $0.kind == "sandbox_in_production" })
    }

    /// StoreKit 2 users are a few percent of a world, and its run still stays clear of the breakers.
    @Test func aWorldWithStoreKit2UsersStaysClearOfTheBreakers() {
        let world = SimulatedWorld(users: 2000, seed: 1, asOf: testAsOf, includesStoreKit2Users: true)
        let outcome = ExpectationDeriver.derive(world: world)
        #expect(outcome.counts.peakRevokeRatio < 0.15, "\(outcome.counts)")
        #expect(outcome.counts.peakUnverifiedRatio < 0.05, "\(outcome.counts)")
        let storeKit2 = TestWorlds.users(world).filter(\.user.scenario.isStoreKit2).count
        #expect((40...140).contains(storeKit2), "\(storeKit2) StoreKit 2 users of 2000")
    }
}
