/// Why signed data from Apple is not believed: the first rule of CONTRACT §9 it breaks, in the order
/// they are checked (research/server-api.md §5).
///
/// Descriptions are one line, name the rule and never echo the data.
public enum SignedDataFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a compact JWS: not three base64url segments, a header that is not JSON, …
    case notJWS(String)
    /// The header's `alg` is not `ES256`.
    case unsupportedAlgorithm(String)
    /// The header names a member twice (RFC 7515 §4: a JWS with duplicate header names is refused).
    case duplicateHeaderKey
    /// The header has `crit`: it asks for extensions to be understood, and none is (RFC 7515 §4.1.11).
    case criticalHeader
    /// The header has no `x5c` array of strings.
    case missingCertificateChain
    /// `x5c` does not hold exactly three certificates (leaf, intermediate, root).
    case chainLength(Int)
    /// An `x5c` entry is not a DER certificate.
    case undecodableCertificate(String)
    /// The payload is not a JSON object.
    case undecodablePayload(String)
    /// The payload names a member twice, in any of its objects: two readers could believe two values.
    case duplicatePayloadKey
    /// The payload's `signedDate` (an app transaction's `receiptCreationDate`) is present but not a JSON
    /// number of milliseconds: the instant to check the certificates at is unknown, never "now".
    case signedDateNotANumber(field: String)
    /// Signed data in one of Apple's answers that names no `environment`: what it is evidence for is
    /// unknown, so it is not believed.
    case missingEnvironment
    /// The leaf lacks Apple's receipt-signing OID, or the intermediate Apple's WWDR OID.
    case missingAppleExtension(certificate: String, oid: String)
    /// The leaf and intermediate do not chain to a configured root at the checked instant.
    case untrustedChain(String)
    /// The signature, the leaf and the intermediate check out, but the intermediate was issued by no
    /// configured root: data signed by a chain this job does not trust (a staging chain, another
    /// `--pki-dir`), not altered data. Asking again under the same roots cannot change it.
    case untrustedRoot(String)
    /// The leaf's key is not P-256, or the signature is not 64 bytes, or it does not verify.
    case badSignature(String)
    /// Xcode or LocalTesting data: signed by a local StoreKit testing certificate, never Apple's.
    case testEnvironment(String)
    /// A valid signature, for an environment this database does not serve.
    case wrongEnvironment(signed: String, served: String)
    /// A valid signature, for a bundle id that is not accepted (`APPLE_BUNDLE_IDS`).
    case bundleNotAccepted(bundleID: String, accepted: [String])
    /// A notification's nested signed data failed (`field`: `signedTransactionInfo`, …).
    case nested(field: String, failure: Box)

    /// Indirection for `nested`.
    public final class Box: Hashable, Sendable {
        public let failure: SignedDataFailure
        init(_ failure: SignedDataFailure) { self.failure = failure }
        public static func == (lhs: Box, rhs: Box) -> Bool { lhs.failure == rhs.failure }
        public func hash(into hasher: inout Hasher) { hasher.combine(failure) }
    }

    /// Whether the signature and chain held, and only an app-level check (environment, bundle id)
    /// failed: genuine Apple data, for somewhere else.
    public var isSignatureValid: Bool {
        switch self {
        case .wrongEnvironment, .bundleNotAccepted: true
        case .nested(_, let box): box.failure.isSignatureValid
        default: false
        }
    }

    public var description: String {
        switch self {
        case .notJWS(let reason): "not a compact JWS: \(reason)"
        case .unsupportedAlgorithm(let alg): "header alg is \(Self.shown(alg, limit: 12)), not ES256"
        case .duplicateHeaderKey: "header names a member twice (RFC 7515 §4)"
        case .criticalHeader: "header has crit: no JWS extension is understood (RFC 7515 §4.1.11)"
        case .missingCertificateChain: "header has no x5c certificate chain"
        case .chainLength(let count): "x5c holds \(count) certificate\(count == 1 ? "" : "s"), not 3"
        case .undecodableCertificate(let reason): "x5c certificate does not decode: \(reason)"
        case .undecodablePayload(let reason): "payload does not decode: \(reason)"
        case .duplicatePayloadKey: "payload names a member twice (RFC 7515 §4)"
        case .signedDateNotANumber(let field): "payload \(field) is not a number of milliseconds"
        case .missingEnvironment: "signed data names no environment"
        case .missingAppleExtension(let certificate, let oid): "\(certificate) lacks Apple's OID \(oid)"
        case .untrustedChain(let reason): "certificate chain rejected: \(reason)"
        case .untrustedRoot(let roots):
            "certificate chain rejected: does not chain to the configured root (\(roots)); leaf, intermediate "
                + "and signature check out"
        case .badSignature(let reason): "signature rejected: \(reason)"
        case .testEnvironment(let environment):
            "environment \(Self.shown(environment, limit: 12)) is local StoreKit testing, never accepted"
        case .wrongEnvironment(let signed, let served):
            "signed for \(Self.shown(signed, limit: 24)); this database serves \(served)"
        case .bundleNotAccepted(let bundleID, let accepted):
            "bundle id \(Self.shown(bundleID, limit: 64)) is not accepted (APPLE_BUNDLE_IDS: \(accepted.joined(separator: ", ")))"
        case .nested(let field, let box): "\(field): \(box.failure)"
        }
    }

    /// A value from the data as a description may name it: control and line-breaking characters
    /// (a JSON `\n` escape decodes to one) as `?`, and at most `limit` characters, cut with `…`.
    /// An `alg` is named in at most 12: it is read before anything is verified, and JWS names are
    /// shorter. Only a bundle id or environment that a trusted chain signed is named longer.
    static func shown(_ value: String, limit: Int) -> String {
        var shown = ""
        for (count, character) in value.enumerated() {
            guard count < limit else { return shown + "…" }
            let printable =
                !character.isNewline
                && !character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            shown.append(printable ? character : "?")
        }
        return shown
    }
}
