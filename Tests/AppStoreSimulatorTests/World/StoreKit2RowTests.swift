import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// StoreKit 2 users (`simulator seed --pki-dir`): their rows are JWS the job's verifier accepts under the
/// seeding's root, except the tampered ones; the expectation judges them without asking verifyReceipt.
@Suite struct StoreKit2RowTests {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-sk2-\(UUID())")
    static let chain: SigningChain = {
        do {
            return try SeedSigningChain.create(in: directory, asOfMs: TestWorlds.storeKit2.asOfMs)
        } catch {
            fatalError("cannot mint the test chain: \(error)")
        }
    }()

    /// Every StoreKit 2 row of `world`: its unit, slot and what the world says it is.
    static func signedRows(
        _ world: SimulatedWorld
    ) -> [(unit: WorldUnit, user: WorldUser, slot: Int, account: Int, id: String, signedMs: Int64, tampered: Bool)] {
        var rows: [(WorldUnit, WorldUser, Int, Int, String, Int64, Bool)] = []
        for (unit, user) in TestWorlds.users(world) {
            for row in user.receipts {
                if case .signedTransaction(let account, let id, let signedMs, let tampered) = unit.receipts[row.slot] {
                    rows.append((unit, user, row.slot, account, id, signedMs, tampered))
                }
            }
        }
        return rows
    }

    @Test func theChainIsWrittenAsTheRunAndServerExpectIt() throws {
        _ = Self.chain
        for name in SigningChain.files {
            #expect(FileManager.default.fileExists(atPath: Self.directory.appendingPathComponent(name).path), "\(name)")
        }
        for key in [SigningChain.leafKeyFile, SigningChain.receiptLeafKeyFile] {
            let mode =
                try FileManager.default.attributesOfItem(
                    atPath: Self.directory.appendingPathComponent(key).path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(key)")
        }
        let reread = try SigningChain.read(from: Self.directory)
        #expect(reread.root.der == Self.chain.root.der && reread.receiptLeaf.der == Self.chain.receiptLeaf.der)
        #expect(reread.receiptLeafKey.pkcs8PEM == Self.chain.receiptLeafKey.pkcs8PEM)
    }

    @Test(arguments: [false, true])
    func rowsVerifyUnderTheSeededRootExceptTamperedOnes(staging: Bool) throws {
        let world = staging ? TestWorlds.storeKit2Staging : TestWorlds.storeKit2
        _ = Self.chain  // written once, before it is read back
        let root = try SigningChain.read(from: Self.directory).root
        let verifier = SignedDataVerifier(anchors: [TrustAnchor(root)], acceptedBundleIDs: [WorldCatalog.appBundleID])
        let rows = Self.signedRows(world)
        #expect(rows.count >= 8)
        #expect(rows.contains { $0.tampered })
        for row in rows {
            let jws = row.unit.receiptData(row.slot, signingChain: Self.chain)
            #expect(SignedDataVerifier.looksLikeJWS(Array(jws.utf8)))
            let verification = verifier.verify(Array(jws.utf8))
            guard case .transaction(let payload)? = verification.payload else {
                Issue.record("\(row.user.scenario): no transaction payload")
                continue
            }
            let owner = row.unit.accounts[row.account]
            let transaction = try #require(owner.transaction(withID: row.id))
            #expect(payload.transactionID == row.id)
            #expect(payload.originalTransactionID == transaction.originalTransactionID)
            #expect(payload.bundleID == owner.bundleID)
            #expect(payload.productID == transaction.productID)
            #expect(payload.signedDate == WorldUnit.date(row.signedMs))
            #expect(payload.environment == (owner.environment == .sandbox ? .sandbox : .production))
            #expect(payload.price != nil && payload.currency == "USD" && payload.storefront == "USA")
            #expect(payload.appTransactionID != nil)
            if row.user.scenario == .storeKit2OtherBundle {
                guard case .bundleNotAccepted(let bundle, _)? = verification.failure else {
                    Issue.record("clone row: \(String(describing: verification.failure))")
                    continue
                }
                #expect(bundle == WorldCatalog.cloneBundleID)
            } else if row.tampered {
                guard case .badSignature? = verification.failure else {
                    Issue.record("tampered row: \(String(describing: verification.failure))")
                    continue
                }
                let year = 365 * SubscriptionClock.millisecondsPerDay
                #expect(payload.expiresDate == transaction.expiresMs.map { WorldUnit.date($0 + year) })
            } else {
                #expect(
                    verification.failure == nil, "\(row.user.scenario): \(String(describing: verification.failure))")
                let view = transaction.view(at: row.signedMs)
                #expect(payload.expiresDate == transaction.expiresMs.map(WorldUnit.date))
                #expect(payload.revocationDate == view.cancellationMs.map(WorldUnit.date))
                let signedWhileRefunded: Set<WorldScenario> = [.storeKit2Refunded, .storeKit2StaleRefundReversed]
                #expect((payload.revocationDate != nil) == signedWhileRefunded.contains(row.user.scenario))
            }
        }
    }

    /// The job's verifier, told the database's environment, refuses the other environment's rows as
    /// `wrongEnvironment` (a valid signature): what CONTRACT §9 makes `misrouted`.
    @Test func otherEnvironmentRowsAreSignedButForTheOtherEnvironment() throws {
        let verifier = SignedDataVerifier(anchors: [TrustAnchor(Self.chain.root)], environment: .production)
        let rows = Self.signedRows(TestWorlds.storeKit2).filter { $0.user.scenario == .storeKit2OtherEnvironment }
        #expect(!rows.isEmpty)
        for row in rows {
            let failure = verifier.verify(Array(row.unit.receiptData(row.slot, signingChain: Self.chain).utf8)).failure
            guard case .wrongEnvironment(let signed, let served)? = failure else {
                Issue.record("\(String(describing: failure))")
                continue
            }
            #expect(signed == "Sandbox" && served == "production")
        }
    }

    /// The expectation decides a StoreKit 2 row from the world alone: never an Apple answer (verifyReceipt
    /// would call a JWS malformed, 21002), never unverified.
    @Test(arguments: [false, true])
    func theExpectationNeverAsksAppleAboutASignedRow(staging: Bool) {
        let world = staging ? TestWorlds.storeKit2Staging : TestWorlds.storeKit2
        let answerer = AppleAnswerer(world: world)
        let locator = WorldReceiptLocator(world: world)
        for row in Self.signedRows(world) {
            #expect(locator.identify(row.unit.receiptData(row.slot, signingChain: Self.chain)) == .malformed)
            #expect(row.unit.identity(ofSlot: row.slot) == .malformed)
            let outcome = ExpectationDeriver.outcome(
                of: row.slot, in: row.unit, answerer: answerer,
                assumptions: RunAssumptions(environment: world.environment))
            switch outcome {
            case .validSigned(let evidence), .misroutedSigned(let evidence):
                #expect(!row.tampered)
                #expect(evidence.view.transaction.transactionID == row.id)
                #expect(evidence.signedMs == row.signedMs)
                #expect(outcome.isMisrouted == (row.user.scenario == .storeKit2OtherEnvironment))
            case .invalid(let flag):
                #expect(
                    (row.tampered && flag == "invalid_receipt")
                        || (row.user.scenario == .storeKit2OtherBundle && flag == "bundle_mismatch"))
            case .valid, .misrouted, .unverified:
                Issue.record("\(row.user.scenario): \(outcome)")
            }
        }
    }

    /// `serve --pki-dir` rebuilds the same world: every receipt of the other users is found from its bytes.
    @Test func theServerFindsTheOtherUsersReceiptsOfAWorldWithStoreKit2Users() {
        let locator = WorldReceiptLocator(world: TestWorlds.storeKit2)
        var compared = 0
        TestWorlds.storeKit2.forEachUnit { unit in
            for slot in unit.receipts.indices {
                if case .signedTransaction = unit.receipts[slot] { continue }
                #expect(locator.identify(unit.receiptData(slot)) == unit.identity(ofSlot: slot))
                compared += 1
            }
        }
        #expect(compared > 250)
    }

    @Test func signedRowTransactionIDsAreUniqueAcrossTheWorld() {
        let duplicates = TestWorlds.transactionIDs(TestWorlds.storeKit2).duplicates
        #expect(duplicates == 0)
        let signedIDs = Self.signedRows(TestWorlds.storeKit2).map(\.id)
        #expect(Set(signedIDs).count == signedIDs.count)
    }
}
