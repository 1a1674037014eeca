import Foundation
import Testing

@testable import AppStoreReceipts

/// One rule for certificate time (`CertificateValidity`): valid from `notBefore` through `notAfter`,
/// both included, as Apple's Swift and Java verifiers decide; and a chain remembered by a cache
/// gives, at every instant, the verdict a fresh check gives, for signed data and receipts alike.
@Suite struct CertificateValidityTests {
    static let notBefore = Date(timeIntervalSince1970: 1_780_000_000)
    static let notAfter = Date(timeIntervalSince1970: 1_790_000_000)
    static let chain = try! SigningChain.mint(
        notBefore: notBefore - 86_400, notAfter: notAfter + 86_400, leafValidity: notBefore...notAfter)

    /// Each instant checked and whether the leaf is valid then, written out rather than computed.
    static let table: [(name: String, instant: Date, valid: Bool)] = [
        ("notBefore-1", notBefore - 1, false), ("notBefore-1ms", notBefore - 0.001, false),
        ("notBefore", notBefore, true), ("notAfter-1", notAfter - 1, true), ("notAfter", notAfter, true),
        ("notAfter+1ms", notAfter + 0.001, false), ("notAfter+1", notAfter + 1, false),
    ]

    @Test func theRuleIncludesBothEnds() {
        let validity = CertificateValidity(from: Self.notBefore, until: Self.notAfter)
        for (name, instant, valid) in Self.table {
            #expect(validity.covers(instant) == valid, "\(name)")
            #expect(Self.chain.leaf.isValid(at: instant) == valid, "\(name)")
        }
        #expect(validity.problem(at: Self.notBefore - 1) == .notYetValid)
        #expect(validity.problem(at: Self.notAfter + 1) == .expired)
        // The chain's validity is the narrowest of its certificates'.
        let chain = CertificateValidity([Self.chain.leaf, Self.chain.intermediate, Self.chain.root])
        #expect(chain == validity)
    }

    static func jws(signedAt instant: Date) -> String {
        let milliseconds = Int64((instant.timeIntervalSince1970 * 1000).rounded())
        let payload = #"{"transactionId":"1","bundleId":"com.example","signedDate":\#(milliseconds)}"#
        return chain.sign(payload: Array(payload.utf8))
    }

    static func verifier() -> SignedDataVerifier { SignedDataVerifier(anchors: [TrustAnchor(chain.root)]) }

    /// Fresh: a new verifier for every instant. Cached: one verifier that verified the same header
    /// at each other instant of the table first (so its header slot and chain cache hold the chain
    /// checked elsewhere), in both orders.
    @Test func signedDataFreshAndCachedAgreeAtEverySecond() {
        let now = Self.notAfter + 86_400
        for (name, instant, valid) in Self.table {
            let fresh = Self.verifier().verify(Array(Self.jws(signedAt: instant).utf8), now: now)
            #expect((fresh.failure == nil) == valid, "fresh \(name): \(String(describing: fresh.failure))")
            for order in [Self.table, Self.table.reversed()] {
                let cached = Self.verifier()
                for other in order where other.name != name {
                    _ = cached.verify(Array(Self.jws(signedAt: other.instant).utf8), now: now)
                }
                let verdict = cached.verify(Array(Self.jws(signedAt: instant).utf8), now: now)
                #expect(verdict.failure == fresh.failure, "cached \(name)")
            }
        }
    }

    @Test func theChainCacheAgreesWithAFreshCheck() {
        let x5c = [Self.chain.leaf, Self.chain.intermediate, Self.chain.root].map {
            Data($0.der).base64EncodedString()
        }
        let warm = CertificateChainVerifier(anchors: [TrustAnchor(Self.chain.root)])
        _ = try? warm.verify(x5c, at: Self.notBefore + 86_400)
        for (name, instant, valid) in Self.table {
            let fresh = Result { () throws(SignedDataFailure) in
                try CertificateChainVerifier(anchors: [TrustAnchor(Self.chain.root)]).verify(x5c, at: instant)
            }
            let cached = Result { () throws(SignedDataFailure) in try warm.verify(x5c, at: instant) }
            #expect(((try? fresh.get()) != nil) == valid, "fresh \(name)")
            #expect(((try? cached.get()) != nil) == valid, "cached \(name)")
        }
    }

    @Test func receiptsFreshAndCachedAgreeAtEverySecond() throws {
        let receipt = LocalReceipt(
            environment: "Production", bundleID: "com.example", applicationVersion: "1", creationDate: Self.notBefore)
        let der = try ReceiptSigner(chain: Self.chain).appReceipt(receipt)
        let warm = ReceiptSignatureVerifier(roots: [Self.chain.root])
        _ = warm.verify(der: der, at: Self.notBefore + 86_400)
        for (name, instant, valid) in Self.table {
            let fresh = ReceiptSignatureVerifier(roots: [Self.chain.root]).verify(der: der, at: instant)
            let cached = warm.verify(der: der, at: instant)
            #expect(fresh.isVerified == valid, "fresh \(name): \(fresh.failure ?? "")")
            #expect(cached.isVerified == valid, "cached \(name): \(cached.failure ?? "")")
            #expect(cached.failure == fresh.failure, "\(name)")
        }
    }
}
