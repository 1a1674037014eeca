import CLibCrypto
import Foundation
import Synchronization

/// Checks that a JWS's leaf and intermediate chain to a configured root at a given instant, with
/// Apple's marker OIDs, and remembers chains it has verified.
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
    /// Apple's receipt-signing OID, on the leaf.
    static let leafOID = "1.2.840.113635.100.6.11.1"
    /// Apple's WWDR intermediate OID.
    static let intermediateOID = "1.2.840.113635.100.6.2.1"

    /// The instants X.509 validity times can express: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    static let expressible =
        Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799)

    private let stores: [TrustStore]
    private let rootNames: String
    private let cache = Mutex<(entries: [Key: VerifiedChain], order: [Key])>((entries: [:], order: []))
    private let capacity: Int

    init(anchors: [TrustAnchor], capacity: Int = 32) {
        // One store per strictness: X509_STRICT is a flag of the whole verification.
        stores = [true, false].compactMap { strict in
            let group = anchors.filter { $0.isStrict == strict }
            return group.isEmpty ? nil : TrustStore(group, strict: strict)
        }
        rootNames = anchors.map { Self.commonName($0.certificate.subject) }.joined(separator: ", ")
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
        guard leaf.hasExtension(Self.leafOID) else {
            throw .missingAppleExtension(certificate: "leaf", oid: Self.leafOID)
        }
        guard intermediate.hasExtension(Self.intermediateOID) else {
            throw .missingAppleExtension(certificate: "intermediate", oid: Self.intermediateOID)
        }
        // Before OpenSSL, which takes the instant as a `time_t`: a `signedDate` of 1e300 ms does not
        // convert (a trap), and no certificate is valid outside the years X.509 times can express.
        guard instant >= Self.expressible.lowerBound else {
            throw .untrustedChain("a certificate was not yet valid at the instant checked (before year 1)")
        }
        guard instant <= Self.expressible.upperBound else {
            throw .untrustedChain("a certificate had expired at the instant checked (after year 9999)")
        }
        var firstFailure: SignedDataFailure?
        for store in stores {
            switch store.chain(leaf: leaf, intermediate: intermediate, at: instant) {
            case .success(let root):
                guard let key = ES256Key(publicKeyOf: leaf) else { throw .badSignature("the leaf's key is not P-256") }
                return VerifiedChain(leafKey: key, certificates: [leaf, intermediate, root])
            case .failure(let code):
                if firstFailure == nil || code != X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY {
                    firstFailure = failure(code, at: instant)
                }
            }
        }
        if case .untrustedChain = firstFailure, Self.issuerUnknown(firstFailure),
            Self.leafChainsToIntermediate(leaf: leaf, intermediate: intermediate, at: instant)
        {
            throw .untrustedRoot(rootNames)
        }
        throw firstFailure ?? .untrustedChain("no trust anchor is configured")
    }

    /// Whether the failure is "the intermediate's issuer is none of the configured roots".
    private static func issuerUnknown(_ failure: SignedDataFailure?) -> Bool {
        guard case .untrustedChain(let reason) = failure else { return false }
        return reason.hasPrefix(Self.issuerUnknownPrefix)
    }

    private static let issuerUnknownPrefix = "does not chain to the configured root"

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

    private func failure(_ code: Int32, at instant: Date) -> SignedDataFailure {
        let at = LocalReceiptTimestamp.format(instant)
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: return .untrustedChain("a certificate had expired at \(at)")
        case X509_V_ERR_CERT_NOT_YET_VALID: return .untrustedChain("a certificate was not yet valid at \(at)")
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
            return .untrustedChain("\(Self.issuerUnknownPrefix) (\(rootNames))")
        case -1: return .untrustedChain("not exactly leaf -> intermediate -> configured root")
        default:
            let text = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
            return .untrustedChain(text)
        }
    }

    private static func reason(_ error: SignedDataFailure) -> String {
        if case .undecodableCertificate(let reason) = error { return reason }
        return error.description
    }

    private static func commonName(_ subject: String) -> String {
        subject.split(separator: ",").first { $0.hasPrefix("CN=") }.map { String($0.dropFirst(3)) } ?? subject
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

/// An `X509_STORE` holding some trust anchors, verified with or without `X509_STRICT`.
///
/// Unchecked `Sendable`: after `init` the store is only read, and OpenSSL locks its lookups. Shared
/// with `ReceiptChainVerifier`, whose receipt chains have the same shape.
final class TrustStore: @unchecked Sendable {
    private let store: OpaquePointer
    private let anchors: [TrustAnchor]
    private let strict: Bool

    init(_ anchors: [TrustAnchor], strict: Bool) {
        guard let store = X509_STORE_new() else { fatalError("X509_STORE_new: out of memory") }
        for anchor in anchors { X509_STORE_add_cert(store, anchor.certificate.pointer) }
        OpenSSLError.clear()
        self.store = store
        self.anchors = anchors
        self.strict = strict
    }

    deinit { X509_STORE_free(store) }

    enum Outcome {
        case success(X509Certificate)
        case failure(Int32)
    }

    /// The anchor `leaf` and `intermediate` chain to at `instant`, or OpenSSL's error code (-1: a
    /// chain other than leaf → intermediate → anchor). OpenSSL builds and checks the chain without
    /// looking at time; the chain's validity at `instant` is then `CertificateValidity`'s, the rule the
    /// callers' caches apply too.
    func chain(leaf: X509Certificate, intermediate: X509Certificate, at instant: Date) -> Outcome {
        OpenSSLError.clear()
        defer { OpenSSLError.clear() }
        guard let context = X509_STORE_CTX_new(), let untrusted = recon_sk_X509_new_null() else { return .failure(-1) }
        defer {
            X509_STORE_CTX_free(context)
            recon_sk_X509_free(untrusted)
        }
        _ = recon_sk_X509_push(untrusted, intermediate.pointer)
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else { return .failure(-1) }
        let parameters = X509_STORE_CTX_get0_param(context)
        // No X509_VERIFY_PARAM_set_time: a set time overrides NO_CHECK_TIME.
        let flags = X509_V_FLAG_NO_CHECK_TIME | (strict ? X509_V_FLAG_X509_STRICT : 0)
        X509_VERIFY_PARAM_set_flags(parameters, UInt(flags))
        guard X509_verify_cert(context) == 1 else { return .failure(X509_STORE_CTX_get_error(context)) }
        guard let chain = X509_STORE_CTX_get0_chain(context), recon_sk_X509_num(chain) == 3,
            recon_sk_X509_value(chain, 1) == intermediate.pointer,
            let root = anchors.first(where: { $0.certificate.pointer == recon_sk_X509_value(chain, 2) })
        else { return .failure(-1) }
        switch CertificateValidity([leaf, intermediate, root.certificate]).problem(at: instant) {
        case nil: return .success(root.certificate)
        case .notYetValid: return .failure(X509_V_ERR_CERT_NOT_YET_VALID)
        case .expired: return .failure(X509_V_ERR_CERT_HAS_EXPIRED)
        }
    }
}
