import Foundation
import Synchronization

/// Checks that a receipt's signing certificate and its issuer chain to a configured root at an
/// instant by `TrustChainVerifier`'s rule (Apple's marker OIDs, exactly leaf → intermediate → root),
/// that the receipt carries no other certificate but a configured root; and remembers the signing
/// keys of chains it has verified.
///
/// Verifying a real chain costs a few hundred microseconds (three certificates parsed, two RSA
/// signatures); Apple signs every receipt of months with one leaf, so a verified chain is kept
/// (32 entries), keyed by the exact DER of the leaf and intermediate, and its verdict reused only
/// while the instant checked lies inside every certificate's validity (`CertificateValidity`, the rule
/// the fresh check applies too): the verdict a full check would reach. Its key checks signatures whatever the instant, since it is read from those exact bytes.
///
/// Threading: `Sendable`; the cache sits behind a `Mutex`, and no OpenSSL call happens while holding it.
final class ReceiptChainVerifier: Sendable {
    private let chains: TrustChainVerifier
    /// The configured roots' DER: the only certificates a receipt may carry besides its chain.
    private let rootCertificates: [[UInt8]]
    /// Newest last. Searched by comparing bytes, newest first: a run meets a handful of signing
    /// certificates, and hashing two kilobytes of DER for a dictionary cost more than the comparisons.
    private let cache = Mutex<[Entry]>([])
    private let capacity: Int

    init(anchors: [TrustAnchor], capacity: Int = 32) {
        chains = TrustChainVerifier(anchors: anchors)
        rootCertificates = anchors.map(\.certificate.der)
        self.capacity = capacity
    }

    /// The verified chain of `signed` at `instant` (leaf, intermediate, root), after
    /// `signatureCheck` has accepted the signature with the signer's key: the signature is judged
    /// first, so that altered content is reported as such even when the alteration moved the
    /// creation date outside the certificates' validity.
    func verify(
        _ signed: ReceiptSignedData, at instant: Date,
        signatureCheck: (ReceiptSignerKey) throws(ReceiptSignatureFailure) -> Void
    ) throws(ReceiptSignatureFailure) -> [X509Certificate] {
        let certificates: [X509Certificate]
        let cached = cache.withLock { entries in entries.last { $0.isChain(of: signed) } }
        if let cached {
            try signatureCheck(cached.key)
        }
        if let cached, cached.covers(instant) {
            certificates = cached.certificates
        } else {
            let parsed = try Self.parse(signed)
            if cached == nil { try signatureCheck(parsed.key) }
            let entry = try verifyChain(parsed, signed, at: instant)
            cache.withLock { entries in
                entries.removeAll { $0.isChain(of: signed) }
                entries.append(entry)
                if entries.count > capacity { entries.removeFirst() }
            }
            certificates = entry.certificates
        }
        // The chain verified; whatever else the receipt carries must be a configured root (Apple's
        // receipts carry Apple Inc. Root CA), so that no byte of any certificate goes unchecked.
        // (The signer and intermediate are certificates of this very container: the same slices.)
        for certificate in signed.certificates
        where certificate.der.startIndex != signed.signer.der.startIndex
            && certificate.der.startIndex != signed.intermediate.der.startIndex
            && !rootCertificates.contains(where: { sameBytes($0[...], certificate.der) })
        {
            throw ReceiptSignatureFailure(
                "the receipt carries a certificate that is neither its signer's chain nor a configured root")
        }
        return certificates
    }

    /// The certificates `signed` carries that decode, for reporting a chain that failed.
    /// Signer first, then its issuer, then one more at most (Apple's root): a hostile receipt may carry
    /// thousands.
    static func presented(_ signed: ReceiptSignedData) -> [CertificateSummary] {
        let others = signed.certificates.lazy.filter {
            $0.der.startIndex != signed.signer.der.startIndex
                && $0.der.startIndex != signed.intermediate.der.startIndex
        }
        let ordered = [signed.signer, signed.intermediate] + others.prefix(1)
        return ordered.compactMap { try? X509Certificate(der: Array($0.der)) }.map(CertificateSummary.init)
    }

    private static func parse(_ signed: ReceiptSignedData) throws(ReceiptSignatureFailure) -> (
        leaf: X509Certificate, intermediate: X509Certificate, key: ReceiptSignerKey
    ) {
        let leaf: X509Certificate
        let intermediate: X509Certificate
        do {
            leaf = try X509Certificate(der: Array(signed.signer.der))
            intermediate = try X509Certificate(der: Array(signed.intermediate.der))
        } catch {
            throw ReceiptSignatureFailure("a certificate in the receipt does not decode")
        }
        guard let key = ReceiptSignerKey(publicKeyOf: leaf) else {
            throw ReceiptSignatureFailure("the signer's certificate holds no usable public key")
        }
        return (leaf, intermediate, key)
    }

    private func verifyChain(
        _ parsed: (leaf: X509Certificate, intermediate: X509Certificate, key: ReceiptSignerKey),
        _ signed: ReceiptSignedData, at instant: Date
    ) throws(ReceiptSignatureFailure) -> Entry {
        let (leaf, intermediate, key) = parsed
        let root = try chains.root(leaf: leaf, intermediate: intermediate, at: instant) { rejection in
            switch rejection {
            case .missingMarker(let position, let oid):
                let which = position == .leaf ? "the signer's certificate" : "the intermediate certificate"
                return ReceiptSignatureFailure("\(which) lacks Apple's OID \(oid)")
            case .untrusted(_, let reason):
                return ReceiptSignatureFailure("certificate chain rejected: \(reason)")
            }
        }
        return Entry(
            leafDER: Array(signed.signer.der), intermediateDER: Array(signed.intermediate.der), key: key,
            certificates: [leaf, intermediate, root])
    }

    /// A chain that verified at some instant, and where that verdict holds.
    private struct Entry: Sendable {
        /// The exact DER it was read from: the cache's key.
        let leafDER: [UInt8]
        let intermediateDER: [UInt8]
        let key: ReceiptSignerKey
        /// Leaf, intermediate, root.
        let certificates: [X509Certificate]
        let validity: CertificateValidity

        init(leafDER: [UInt8], intermediateDER: [UInt8], key: ReceiptSignerKey, certificates: [X509Certificate]) {
            self.leafDER = leafDER
            self.intermediateDER = intermediateDER
            self.key = key
            self.certificates = certificates
            validity = CertificateValidity(certificates)
        }

        func covers(_ instant: Date) -> Bool { validity.covers(instant) }

        func isChain(of signed: ReceiptSignedData) -> Bool {
            sameBytes(leafDER[...], signed.signer.der) && sameBytes(intermediateDER[...], signed.intermediate.der)
        }
    }
}
