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
            #expect(written.count == 7)
            // A row the first seeding signed.
            let (unit, user) = try #require(TestWorlds.firstOfEachScenario(TestWorlds.storeKit2)[.storeKit2Active])
            let jws = unit.receiptData(user.receipts[0].slot, signingChain: first.chain)

            let second = try SeedSigningChain.prepare(in: directory, asOfMs: Self.asOfMs + 86_400_000, fresh: false)
            #expect(second.reused)
            #expect(try Self.contents(directory) == written)
            #expect(second.chain.root.der == first.chain.root.der && second.chain.leaf.der == first.chain.leaf.der)
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
