import CLibCrypto
import Foundation
import Synchronization

/// Checks that a receipt's signing certificate and its issuer chain to a configured root at an
/// instant, with Apple's marker OIDs (the receipt-signing leaf 1.2.840.113635.100.6.11.1, the WWDR
/// intermediate 1.2.840.113635.100.6.2.1, which G1 and G5 both carry), exactly leaf → intermediate →
/// root; and remembers the signing keys of chains it has verified.
///
/// Verifying a real chain costs a few hundred microseconds (three certificates parsed, two RSA
/// signatures); Apple signs every receipt of months with one leaf, so a verified chain is kept
/// (32 entries), keyed by the exact DER of the leaf and intermediate, and its verdict reused only
/// while the instant checked lies inside every certificate's validity (`CertificateValidity`, the rule
/// the fresh check applies too): the verdict a full check would reach. Its key checks signatures whatever the instant, since it is read from those exact bytes.
///
/// Threading: `Sendable`; the cache sits behind a `Mutex`, and no OpenSSL call happens while holding it.
final class ReceiptChainVerifier: Sendable {
    private let stores: [TrustStore]
    private let rootNames: String
    /// The configured roots' DER: the only certificates a receipt may carry besides its chain.
    private let rootCertificates: [[UInt8]]
    /// Newest last. Searched by comparing bytes, newest first: a run meets a handful of signing
    /// certificates, and hashing two kilobytes of DER for a dictionary cost more than the comparisons.
    private let cache = Mutex<[Entry]>([])
    private let capacity: Int

    init(anchors: [TrustAnchor], capacity: Int = 32) {
        stores = [true, false].compactMap { strict in
            let group = anchors.filter { $0.isStrict == strict }
            return group.isEmpty ? nil : TrustStore(group, strict: strict)
        }
        rootNames = anchors.map { Self.commonName($0.certificate.subject) }.joined(separator: ", ")
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
        guard leaf.hasExtension(CertificateChainVerifier.leafOID) else {
            throw ReceiptSignatureFailure(
                "the signer's certificate lacks Apple's OID \(CertificateChainVerifier.leafOID)")
        }
        guard intermediate.hasExtension(CertificateChainVerifier.intermediateOID) else {
            throw ReceiptSignatureFailure(
                "the intermediate certificate lacks Apple's OID \(CertificateChainVerifier.intermediateOID)")
        }
        var firstFailure: ReceiptSignatureFailure?
        for store in stores {
            switch store.chain(leaf: leaf, intermediate: intermediate, at: instant) {
            case .success(let root):
                return Entry(
                    leafDER: Array(signed.signer.der), intermediateDER: Array(signed.intermediate.der), key: key,
                    certificates: [leaf, intermediate, root])
            case .failure(let code):
                if firstFailure == nil || code != X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY {
                    firstFailure = failure(code, at: instant)
                }
            }
        }
        throw firstFailure ?? ReceiptSignatureFailure("certificate chain rejected: no trust anchor is configured")
    }

    private func failure(_ code: Int32, at instant: Date) -> ReceiptSignatureFailure {
        let at = LocalReceiptTimestamp.format(instant)
        let reason: String
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: reason = "a certificate had expired at \(at)"
        case X509_V_ERR_CERT_NOT_YET_VALID: reason = "a certificate was not yet valid at \(at)"
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
            reason = "does not chain to the configured root (\(rootNames))"
        case -1: reason = "not exactly leaf -> intermediate -> configured root"
        default: reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
        }
        return ReceiptSignatureFailure("certificate chain rejected: \(reason)")
    }

    private static func commonName(_ subject: String) -> String {
        subject.split(separator: ",").first { $0.hasPrefix("CN=") }.map { String($0.dropFirst(3)) } ?? subject
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
