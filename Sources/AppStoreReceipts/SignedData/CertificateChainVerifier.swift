import CLibCrypto
import Foundation
import Synchronization

/// Checks that a JWS's leaf and intermediate chain to a configured root at a given instant by
/// `TrustChainVerifier`'s rule (Apple's marker OIDs, exactly leaf → intermediate → root), names a
/// chain that fails only at its root, and remembers chains it has verified.
///
/// The chain is built from `x5c[0]` and `x5c[1]` to the trust anchors only; `x5c[2]` must decode
/// but is never trusted or compared (one of Apple's library fixtures carries a different root
/// there). The verified chain must be exactly leaf → intermediate → root.
///
/// Verifying a real Apple chain costs two P-384 signatures and three certificate parses, far more
/// than a signed transaction's own check; Apple reuses one leaf for months, so a verified chain is kept, keyed by the exact `x5c`
/// text, and reused only while the instant checked lies inside every certificate's validity: fresh
/// and cached checks both apply `CertificateValidity`, so the verdict is the one a full check reaches.
///
/// Threading: `verify` is called from any thread; the cache sits behind a `Mutex`, and no OpenSSL
/// call happens while holding it. The stores are only read after `init`.
final class CertificateChainVerifier: Sendable {
    private let chains: TrustChainVerifier
    private let cache = Mutex<(entries: [Key: VerifiedChain], order: [Key])>((entries: [:], order: []))
    private let capacity: Int

    init(anchors: [TrustAnchor], capacity: Int = 32) {
        chains = TrustChainVerifier(anchors: anchors)
        self.capacity = capacity
    }

    /// The verified chain of `x5c` (three standard base64 certificates) at `instant`.
    func verify(_ x5c: [String], at instant: Date) throws(SignedDataFailure) -> VerifiedChain {
        let key = Key(x5c)
        if let hit = cache.withLock({ $0.entries[key] }), hit.covers(instant) { return hit }
        let chain = try verifyUncached(x5c, at: instant)
        cache.withLock { cache in
            if cache.entries.updateValue(chain, forKey: key) == nil { cache.order.append(key) }
            if cache.order.count > capacity { cache.entries[cache.order.removeFirst()] = nil }
        }
        return chain
    }

    /// The certificates of `x5c` that decode, for reporting a chain that failed.
    static func presented(_ x5c: [String]) -> [CertificateSummary] {
        x5c.prefix(3).compactMap { text in
            (try? LocalReceiptBase64.decode(text.utf8)).flatMap { try? X509Certificate(der: $0) }.map(
                CertificateSummary.init)
        }
    }

    private func verifyUncached(_ x5c: [String], at instant: Date) throws(SignedDataFailure) -> VerifiedChain {
        var certificates: [X509Certificate] = []
        for (position, text) in x5c.enumerated() {
            let der: [UInt8]
            do {
                der = try LocalReceiptBase64.decode(text.utf8)
            } catch {
                throw .undecodableCertificate("x5c[\(position)] is not base64")
            }
            do {
                certificates.append(try X509Certificate(der: der))
            } catch {
                throw .undecodableCertificate("x5c[\(position)]: \(Self.reason(error))")
            }
        }
        let leaf = certificates[0]
        let intermediate = certificates[1]
        let root = try chains.root(leaf: leaf, intermediate: intermediate, at: instant) { rejection in
            switch rejection {
            case .missingMarker(let position, let oid):
                return SignedDataFailure.missingAppleExtension(certificate: position.rawValue, oid: oid)
            case .untrusted(_, let reason):
                // A chain that fails only at its root, whose leaf and intermediate hold up, is another signer's.
                let otherRoot =
                    rejection.issuerUnknown
                    && Self.leafChainsToIntermediate(leaf: leaf, intermediate: intermediate, at: instant)
                return otherRoot ? .untrustedRoot(chains.rootNames) : .untrustedChain(reason)
            }
        }
        guard let key = ES256Key(publicKeyOf: leaf) else { throw .badSignature("the leaf's key is not P-256") }
        return VerifiedChain(leafKey: key, certificates: [leaf, intermediate, root])
    }

    /// Leaf and intermediate hold up by themselves: the leaf is signed by the intermediate's key and both
    /// are valid at `instant`. Then a chain that fails only at its root is another signer's (a staging
    /// chain), not altered data (CONTRACT §9, "Signed rows").
    private static func leafChainsToIntermediate(leaf: X509Certificate, intermediate: X509Certificate, at instant: Date)
        -> Bool
    {
        guard CertificateValidity([leaf, intermediate]).covers(instant),
            let issuerKey = X509_get0_pubkey(intermediate.pointer)
        else { return false }
        OpenSSLError.clear()
        defer { OpenSSLError.clear() }
        return X509_verify(leaf.pointer, issuerKey) == 1
    }

    private static func reason(_ error: SignedDataFailure) -> String {
        if case .undecodableCertificate(let reason) = error { return reason }
        return error.description
    }

    /// The exact `x5c` text.
    private struct Key: Hashable {
        let x5c: [String]
        init(_ x5c: [String]) { self.x5c = x5c }
    }
}

/// A leaf, intermediate and root that chained at some instant, and the leaf's key.
struct VerifiedChain: Sendable {
    let leafKey: ES256Key
    /// Leaf, intermediate, root.
    let certificates: [X509Certificate]
    /// The instants at which every certificate is valid: where the verdict may be reused.
    let validity: CertificateValidity

    init(leafKey: ES256Key, certificates: [X509Certificate]) {
        self.leafKey = leafKey
        self.certificates = certificates
        validity = CertificateValidity(certificates)
    }

    func covers(_ instant: Date) -> Bool { validity.covers(instant) }
}

/// The chain one header's certificates verified to, kept with the header (`JWSHeaderCache`).
final class VerifiedChainSlot: Sendable {
    private let chain = Mutex<VerifiedChain?>(nil)

    /// The remembered chain, when the instant lies within every certificate's validity.
    func chain(covering instant: Date) -> VerifiedChain? {
        chain.withLock { $0 }.flatMap { $0.covers(instant) ? $0 : nil }
    }

    func remember(_ verified: VerifiedChain) { chain.withLock { $0 = verified } }
}

/// One certificate as `inspect` shows it.
public struct CertificateSummary: Hashable, Sendable {
    public let subject: String
    public let issuer: String
    public let notBefore: Date
    public let notAfter: Date

    init(_ certificate: X509Certificate) {
        subject = certificate.subject
        issuer = certificate.issuer
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
    }
}
