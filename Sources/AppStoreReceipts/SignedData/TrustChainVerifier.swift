import CLibCrypto
import Foundation

/// The chain rule Apple's two signature formats share: the leaf carries Apple's receipt-signing OID
/// (1.2.840.113635.100.6.11.1), the intermediate the WWDR OID (1.2.840.113635.100.6.2.1, which G1 and
/// G5 both carry), and leaf → intermediate → one configured root is exactly the chain OpenSSL builds,
/// every certificate valid at the instant checked.
///
/// One verifier for app receipts (`ReceiptChainVerifier`) and for signed data (`CertificateChainVerifier`);
/// each keeps its own policy around it (which instant, which key, what else the container may carry,
/// its cache) and its own error type.
///
/// Threading: `Sendable`; the stores are only read after `init`.
struct TrustChainVerifier: Sendable {
    /// Apple's receipt-signing OID, on the leaf.
    static let leafOID = "1.2.840.113635.100.6.11.1"
    /// Apple's WWDR intermediate OID.
    static let intermediateOID = "1.2.840.113635.100.6.2.1"

    /// The instants X.509 validity times can express: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    static let expressible =
        Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799)

    /// The configured roots' common names, for messages.
    let rootNames: String
    private let stores: [TrustStore]

    init(anchors: [TrustAnchor]) {
        // One store per strictness: X509_STRICT is a flag of the whole verification.
        stores = [true, false].compactMap { strict in
            let group = anchors.filter { $0.isStrict == strict }
            return group.isEmpty ? nil : TrustStore(group, strict: strict)
        }
        rootNames = anchors.map { Self.commonName($0.certificate.subject) }.joined(separator: ", ")
    }

    /// The certificate of the chain a marker OID belongs on; its raw value is how messages name it.
    enum Position: String, Sendable {
        case leaf, intermediate
    }

    enum Rejection: Error, Equatable {
        /// The certificate at `position` lacks Apple's marker `oid`.
        case missingMarker(Position, oid: String)
        /// The chain does not hold: OpenSSL's error code (0 when no anchor is configured, -1 for a chain
        /// other than leaf → intermediate → root) and the reason, as messages say it.
        case untrusted(code: Int32, reason: String)

        /// Whether the chain failed only for want of a configured root above the intermediate.
        var issuerUnknown: Bool {
            guard case .untrusted(let code, _) = self else { return false }
            return code == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY || code == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT
        }
    }

    /// The root `leaf` and `intermediate` chain to at `instant`; a rejection is thrown as the caller's
    /// own failure, `rejected(rejection)`.
    func root<Failure: Error>(
        leaf: X509Certificate, intermediate: X509Certificate, at instant: Date,
        rejected: (Rejection) -> Failure
    ) throws(Failure) -> X509Certificate {
        do {
            return try root(leaf: leaf, intermediate: intermediate, at: instant)
        } catch {
            throw rejected(error)
        }
    }

    private func root(leaf: X509Certificate, intermediate: X509Certificate, at instant: Date) throws(Rejection)
        -> X509Certificate
    {
        guard leaf.hasExtension(Self.leafOID) else {
            throw .missingMarker(.leaf, oid: Self.leafOID)
        }
        guard intermediate.hasExtension(Self.intermediateOID) else {
            throw .missingMarker(.intermediate, oid: Self.intermediateOID)
        }
        // Before OpenSSL, which takes the instant as a `time_t`: a `signedDate` of 1e300 ms does not
        // convert (a trap), and no certificate is valid outside the years X.509 times can express.
        guard instant >= Self.expressible.lowerBound else {
            throw .untrusted(
                code: X509_V_ERR_CERT_NOT_YET_VALID,
                reason: "a certificate was not yet valid at the instant checked (before year 1)")
        }
        guard instant <= Self.expressible.upperBound else {
            throw .untrusted(
                code: X509_V_ERR_CERT_HAS_EXPIRED,
                reason: "a certificate had expired at the instant checked (after year 9999)")
        }
        var firstFailure: Rejection?
        for store in stores {
            switch store.chain(leaf: leaf, intermediate: intermediate, at: instant) {
            case .success(let root):
                return root
            case .failure(let code):
                if firstFailure == nil || code != X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY {
                    firstFailure = .untrusted(code: code, reason: reason(code, at: instant))
                }
            }
        }
        throw firstFailure ?? .untrusted(code: 0, reason: "no trust anchor is configured")
    }

    private func reason(_ code: Int32, at instant: Date) -> String {
        let at = LocalReceiptTimestamp.format(instant)
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: return "a certificate had expired at \(at)"
        case X509_V_ERR_CERT_NOT_YET_VALID: return "a certificate was not yet valid at \(at)"
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
            return "does not chain to the configured root (\(rootNames))"
        case -1: return "not exactly leaf -> intermediate -> configured root"
        default: return X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
        }
    }

    private static func commonName(_ subject: String) -> String {
        subject.split(separator: ",").first { $0.hasPrefix("CN=") }.map { String($0.dropFirst(3)) } ?? subject
    }
}
