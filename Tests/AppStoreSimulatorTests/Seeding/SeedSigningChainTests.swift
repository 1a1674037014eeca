import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// `simulator seed --pki-dir DIR`: a DIR that holds a chain and key is reused as it is, an empty one gets
/// a new set, `--new-pki` replaces it, and half a set is refused with the way out.
@Suite struct SeedSigningChainTests {
    static let asOfMs = TestWorlds.storeKit2.asOfMs

    static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-pki-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    static func contents(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in SeedSigningChain.files {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    @Test func aSecondSeedIntoOneDirectoryReusesTheChainAndKey() throws {
        try Self.withDirectory { directory in
            let first = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            #expect(!first.reused)
            let written = try Self.contents(directory)
            #expect(written.count == 9)
            // A row the first seeding signed.
            let (unit, user) = try #require(TestWorlds.firstOfEachScenario(TestWorlds.storeKit2)[.storeKit2Active])
            let jws = unit.receiptData(user.receipts[0].slot, signingChain: first.chain)

            let second = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs + 86_400_000, fresh: false)
            #expect(second.reused)
            #expect(try Self.contents(directory) == written)
            #expect(second.chain.root.der == first.chain.root.der && second.chain.leaf.der == first.chain.leaf.der)
            #expect(second.chain.receiptLeaf.der == first.chain.receiptLeaf.der)
            // The root in DIR after the second seeding still anchors the first seeding's signature.
            let root = try X509Certificate(
                der: Array(try Data(contentsOf: directory.appendingPathComponent(SigningChain.rootFile))))
            let verifier = SignedDataVerifier(
                anchors: [TrustAnchor(root)], acceptedBundleIDs: [WorldCatalog.appBundleID], environment: .production)
            let verification = verifier.verify(Array(jws.utf8))
            #expect(verification.failure == nil, "\(String(describing: verification.failure))")
        }
    }

    @Test func newPKIReplacesTheSet() throws {
        try Self.withDirectory { directory in
            let first = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            let key = try Data(contentsOf: directory.appendingPathComponent(ServerAPIKey.keyFile))
            let second = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: true)
            #expect(!second.reused)
            #expect(second.chain.root.der != first.chain.root.der)
            #expect(try Data(contentsOf: directory.appendingPathComponent(ServerAPIKey.keyFile)) != key)
            #expect(try SigningChain.read(from: directory).root.der == second.chain.root.der)
        }
    }

    @Test(arguments: SeedSigningChain.files)
    func halfASetIsRefusedNamingWhatIsMissing(missing: String) throws {
        try Self.withDirectory { directory in
            _ = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            try FileManager.default.removeItem(at: directory.appendingPathComponent(missing))
            #expect(throws: SeedSigningChain.PKIError.incomplete(directory: directory.path, missing: [missing])) {
                try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            }
            let message = SeedSigningChain.PKIError.incomplete(directory: directory.path, missing: [missing])
                .description
            #expect(message.contains(missing) && message.contains("--new-pki"))
            // The way out works.
            #expect(try !SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: true).reused)
        }
    }

    /// A DIR seeded before app receipts had their own RSA leaf: no leaf can be added to its chain (the
    /// intermediate's key is not kept), so it is refused with the way out, which works.
    @Test func aSetWithoutTheReceiptLeafIsRefusedWithTheWayOut() throws {
        try Self.withDirectory { directory in
            _ = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            for name in [SigningChain.receiptLeafFile, SigningChain.receiptLeafKeyFile] {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            #expect(throws: SeedSigningChain.PKIError.withoutReceiptLeaf(directory: directory.path)) {
                try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            }
            let message = SeedSigningChain.PKIError.withoutReceiptLeaf(directory: directory.path).description
            #expect(message.contains(SigningChain.receiptLeafFile) && message.contains("--new-pki"))
            let fresh = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: true)
            #expect(!fresh.reused)
            #expect(try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false).reused)
        }
    }

    /// The receipt leaf is RSA-2048, issued by the chain's one intermediate with Apple's receipt OID,
    /// so `DIR/apple-root.der` anchors the receipts as it anchors the JWS.
    @Test func receiptsAreSignedByAnRSALeafUnderTheSameRoot() throws {
        try Self.withDirectory { directory in
            let chain = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false).chain
            #expect(chain.receiptLeaf.der != chain.leaf.der)
            #expect(chain.receiptLeaf.issuer == chain.intermediate.subject)
            #expect(chain.receiptLeaf.hasExtension("1.2.840.113635.100.6.11.1"))
            #expect(ES256Key(publicKeyOf: chain.receiptLeaf) == nil)
            let receipt = LocalReceipt(
                bundleID: WorldCatalog.appBundleID,
                creationDate: Date(timeIntervalSince1970: Double(Self.asOfMs) / 1000))
            let signed = try #require(chain.receiptSigner).appReceipt(receipt)
            let root = try X509Certificate(
                der: Array(try Data(contentsOf: directory.appendingPathComponent(SigningChain.rootFile))))
            let check = ReceiptSignatureVerifier(roots: [root]).verify(der: signed, at: nil)
            #expect(check.isVerified, "\(check.result)")
            #expect(check.chain.first?.subject == chain.receiptLeaf.subject)
        }
    }

    @Test func aChainForAnotherEraIsRefused() throws {
        try Self.withDirectory { directory in
            _ = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            let later = Self.asOfMs + Int64(30 * 365.25 * 86_400_000)
            #expect(throws: SeedSigningChain.PKIError.notValidForWorld(directory: directory.path)) {
                try SeedSigningChain.prepare(in: directory, asOfMs: later, fresh: false)
            }
        }
    }

    @Test func anUnreadableSetIsRefused() throws {
        try Self.withDirectory { directory in
            _ = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
            try Data("not a key".utf8).write(to: directory.appendingPathComponent(ServerAPIKey.keyFile))
            do {
                _ = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs, fresh: false)
                Issue.record("an unreadable key was reused")
            } catch let error as SeedSigningChain.PKIError {
                #expect(error.description.contains("--new-pki"))
            }
        }
    }
}
