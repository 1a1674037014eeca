import Foundation

/// Verifies an app receipt's PKCS#7 signature locally (CONTRACT §9, "App receipts"): where Apple
/// never sees the receipt (`--backend server-api`, `inspect`), its signature is what says Apple
/// issued it as it stands. In this order, the first failure being the reason given:
///
/// 1. PKCS#7 SignedData of `data`, one signer named by issuer and serial number, SHA-1 or SHA-256
///    (`ReceiptSignedData`); an iOS 6 transaction receipt is not PKCS#7: not applicable;
/// 2. the instant to check certificates at: the receipt's creation date (attribute 12), because
///    Apple's receipt-signing certificates expire while the receipts they signed stay good (a 2024
///    receipt's leaf expired in October 2024), unless the caller names one;
/// 3. the signature (RSA PKCS #1 v1.5, as Apple's and the simulator's receipts are signed) by the signer's key over the
///    content's digest (over the signed attributes, whose message digest must be the content's, when
///    a signer uses them);
/// 4. the signer → intermediate → root chain at that instant, Apple's marker OIDs on both, to
///    Apple Inc. Root CA (built in) or to the roots given instead (`APPLE_ROOT_CERTIFICATES`);
/// 5. nothing else in the container but a configured root.
///
/// So a changed byte of the content, the signature or any certificate fails. Chains are remembered
/// (`ReceiptChainVerifier`), so a run pays for one chain check per leaf and then one digest and one
/// RSA verification per receipt.
///
/// Threading: `verify` may be called from any number of threads at once.
public struct ReceiptSignatureVerifier: Sendable {
    private let chains: ReceiptChainVerifier

    /// - Parameter roots: the roots chains may end at; nil for Apple Inc. Root CA. Given roots
    ///   replace it (staging and tests), as `APPLE_ROOT_CERTIFICATES` replaces both built-in roots.
    package init(roots: [X509Certificate]? = nil) {
        let anchors = roots.map { $0.map { TrustAnchor($0) } } ?? [.appleIncRootCA]
        chains = ReceiptChainVerifier(anchors: anchors)
    }

    /// A verifier trusting the root certificate files `paths` (DER or PEM) instead of Apple's, or
    /// Apple Inc. Root CA when `paths` is empty: the files `SignedDataVerifier.make` reads.
    /// - Throws: a one-line account naming the file that cannot be read or is not a certificate.
    public static func make(rootCertificateFiles paths: [String]) throws(SignedDataConfigurationError)
        -> ReceiptSignatureVerifier
    {
        guard !paths.isEmpty else { return ReceiptSignatureVerifier() }
        var roots: [X509Certificate] = []
        for path in paths {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw SignedDataConfigurationError(path: path, problem: "cannot be read")
            }
            do {
                roots.append(try X509Certificate(file: Array(contents)))
            } catch {
                throw SignedDataConfigurationError(path: path, problem: "is not a DER or PEM certificate")
            }
        }
        return ReceiptSignatureVerifier(roots: roots)
    }

    /// Verifies base64 receipt data as stored in `receipts.receipt_data` (whitespace ignored; a
    /// receipt base64-encoded twice is decoded through, as `LocalReceiptDecoder` does), at the
    /// receipt's creation date.
    public func verify(base64: String) -> ReceiptSignatureCheck {
        let text = base64.utf8
        guard text.count <= LocalReceiptDecoder.maxBase64Length else {
            return ReceiptSignatureCheck(result: .failed("not a receipt: larger than any receipt"))
        }
        var bytes: [UInt8]
        do {
            bytes = try LocalReceiptBase64.decode(text)
        } catch {
            return ReceiptSignatureCheck(result: .failed("not a receipt: \(error)"))
        }
        if LocalReceiptBase64.isNestedReceiptText(bytes), let inner = try? LocalReceiptBase64.decode(bytes) {
            bytes = inner
        }
        return verify(der: bytes, at: nil)
    }

    /// Verifies a receipt's raw bytes at `instant`, or at its creation date when `instant` is nil.
    public func verify(der: [UInt8], at instant: Date?) -> ReceiptSignatureCheck {
        guard der.count <= LocalReceiptDecoder.maxByteCount else {
            return ReceiptSignatureCheck(result: .failed("not a receipt: larger than any receipt"))
        }
        // A PKCS#7 container is a SEQUENCE (0x30); anything else may be an iOS 6 receipt's plist.
        guard der.first == 0x30 else {
            if (try? LocalReceiptDecoder.decode(bytes: der))?.format == .transactionReceipt {
                return ReceiptSignatureCheck(result: .notApplicable)
            }
            return ReceiptSignatureCheck(
                result: .failed("not a receipt: neither a PKCS#7 app receipt nor an iOS 6 transaction receipt"))
        }
        return check(
            { () throws(ReceiptSignatureFailure) in try ReceiptSignedData(der[...]) },
            at: instant.map(CheckedAt.given) ?? .creationDate)
    }

    /// Verifies the receipt that `decoded` describes at its creation date: `verify(base64:)` of the
    /// text it was decoded from, without decoding the base64 or parsing the container again.
    public func verify(_ decoded: DecodedReceiptData) -> ReceiptSignatureCheck {
        guard let document = decoded.container else { return verify(der: decoded.bytes, at: nil) }
        // The content decoded as a receipt already: only its creation date can be missing.
        return check(
            { () throws(ReceiptSignatureFailure) in try ReceiptSignedData(document) },
            at: .decodedCreationDate(decoded.receipt.creationDate))
    }

    /// The instant a container's certificates are checked at.
    private enum CheckedAt {
        /// The caller's.
        case given(Date)
        /// The creation date of the container's content, decoded for it.
        case creationDate
        /// The creation date of the content, decoded already (nil: the receipt has none).
        case decodedCreationDate(Date?)

        func instant(_ container: ReceiptSignedData) throws(ReceiptSignatureFailure) -> Date {
            switch self {
            case .given(let instant): return instant
            case .creationDate: return try ReceiptSignatureVerifier.creationDate(container)
            case .decodedCreationDate(let created):
                guard let created else { throw ReceiptSignatureVerifier.noCreationDate }
                return created
            }
        }
    }

    /// The check of the container `read` gives, at the instant `checkedAt` picks for it.
    private func check(_ read: () throws(ReceiptSignatureFailure) -> ReceiptSignedData, at checkedAt: CheckedAt)
        -> ReceiptSignatureCheck
    {
        var check = ReceiptSignatureCheck(result: .verified)
        var signed: ReceiptSignedData?
        do throws(ReceiptSignatureFailure) {
            let container = try read()
            signed = container
            check.digest = container.digest.rawValue
            let checkedAt = try checkedAt.instant(container)
            check.checkedAt = checkedAt
            // Before OpenSSL, which takes the instant as a `time_t`.
            guard TrustChainVerifier.expressible.contains(checkedAt) else {
                throw ReceiptSignatureFailure("the instant checked lies outside what certificates can express")
            }
            let chain = try chains.verify(container, at: checkedAt) { key throws(ReceiptSignatureFailure) in
                try Self.checkSignature(container, key: key)
            }
            check.chain = chain.map(CertificateSummary.init)
        } catch {
            check.result = .failed(error.reason)
            check.chain = signed.map(ReceiptChainVerifier.presented) ?? []
        }
        return check
    }

    /// Attribute 12 of the signed content.
    private static func creationDate(_ signed: ReceiptSignedData) throws(ReceiptSignatureFailure) -> Date {
        let receipt: LocalReceipt
        do {
            receipt = try LocalReceiptDecoder.decodeSummary(payload: signed.content)
        } catch {
            throw ReceiptSignatureFailure("the signed content is not a receipt: \(error)")
        }
        guard let created = receipt.creationDate else { throw noCreationDate }
        return created
    }

    private static let noCreationDate = ReceiptSignatureFailure(
        "the receipt has no creation date (attribute 12) to check its certificates at")

    /// The signature over the content, or over the signed attributes that carry the content's digest.
    private static func checkSignature(_ signed: ReceiptSignedData, key: ReceiptSignerKey)
        throws(ReceiptSignatureFailure)
    {
        guard key.type == signed.signatureAlgorithm.keyType else {
            throw ReceiptSignatureFailure("the signer's key is not of the kind its signature algorithm names")
        }
        let digest = signed.digest
        guard let contentDigest = digest.hash(signed.content) else {
            throw ReceiptSignatureFailure("the receipt content cannot be hashed")
        }
        var signedDigest = contentDigest
        if let attributes = signed.signedAttributes {
            guard attributes.messageDigest.elementsEqual(contentDigest) else {
                throw ReceiptSignatureFailure("the signed message digest does not match the receipt content")
            }
            guard let attributesDigest = digest.hash(attributes.signedBytes) else {
                throw ReceiptSignatureFailure("the signed attributes cannot be hashed")
            }
            signedDigest = attributesDigest
        }
        guard key.verify(signature: signed.signature, digestValue: signedDigest, digest) else {
            throw ReceiptSignatureFailure("the signature does not match the receipt content")
        }
    }
}
