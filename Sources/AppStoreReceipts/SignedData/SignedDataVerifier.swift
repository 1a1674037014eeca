import Foundation

/// Verifies Apple's signed data (compact JWS) before anything in it is believed: CONTRACT §9 and
/// research/server-api.md §5, in this order, the first failure being the reason given:
///
/// 1. three base64url segments, a JSON header without `crit` or a name given twice, with `alg` =
///    `ES256` and `x5c` of exactly three;
/// 2. a payload that is a JSON object naming no member twice, whose `signedDate` (the instant
///    certificates are checked at; an app transaction's, else its `receiptCreationDate`) is a number
///    when present;
/// 3. the chain (`CertificateChainVerifier`): Apple's OIDs, x5c[0] → x5c[1] → a configured root;
/// 4. the ES256 signature, 64-byte R‖S, over the first two segments as received;
/// 5. never Xcode or LocalTesting data; then `bundleId` (one of the accepted ones, when any are
///    configured) and `environment` (the one this database serves, when one is given);
/// 6. for a notification, its nested signed data, by the same rules.
///
/// Threading: `verify` may be called from any number of threads at once.
public final class SignedDataVerifier: Sendable {
    private let chains: CertificateChainVerifier
    private let headers = JWSHeaderCache()
    private let acceptedBundleIDs: Set<String>
    private let environment: AppStoreEnvironment?

    /// - Parameters:
    ///   - anchors: the roots chains may end at; Apple Root CA - G3 unless replaced for staging or tests.
    ///   - acceptedBundleIDs: `APPLE_BUNDLE_IDS`; empty means no check.
    ///   - environment: the environment this database serves; nil means no check (`inspect` without
    ///     `--environment`).
    package init(
        anchors: [TrustAnchor] = [.appleRootCAG3], acceptedBundleIDs: Set<String> = [],
        environment: AppStoreEnvironment? = nil
    ) {
        chains = CertificateChainVerifier(anchors: anchors)
        self.acceptedBundleIDs = acceptedBundleIDs
        self.environment = environment
    }

    /// A verifier trusting the root certificate files `paths` (DER or PEM) instead of Apple's, or
    /// Apple Root CA - G3 when `paths` is empty.
    /// - Throws: a one-line account naming the file that cannot be read or is not a certificate.
    public static func make(
        rootCertificateFiles paths: [String], acceptedBundleIDs: Set<String>, environment: AppStoreEnvironment?
    ) throws(SignedDataConfigurationError) -> SignedDataVerifier {
        var anchors: [TrustAnchor] = []
        for path in paths {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw SignedDataConfigurationError(path: path, problem: "cannot be read")
            }
            do {
                anchors.append(TrustAnchor(try X509Certificate(file: Array(contents))))
            } catch {
                throw SignedDataConfigurationError(path: path, problem: "is not a DER or PEM certificate")
            }
        }
        return SignedDataVerifier(
            anchors: anchors.isEmpty ? [.appleRootCAG3] : anchors, acceptedBundleIDs: acceptedBundleIDs,
            environment: environment)
    }

    /// Whether `data` is a compact JWS rather than base64 receipt data (see `CompactJWS.looksLikeJWS`).
    public static func looksLikeJWS(_ data: some Collection<UInt8>) -> Bool { CompactJWS.looksLikeJWS(data) }

    /// Verifies `jws`. - Parameter now: the instant certificates are checked at when the payload has no
    /// `signedDate` at all (one that is there but not a number fails instead).
    public func verify(_ jws: [UInt8], now: Date = Date()) -> SignedDataVerification {
        verify(jws, now: now, as: nil)
    }

    /// - Parameter format: what the data must be read as (a notification's nested data), or nil to
    ///   tell from the payload.
    private func verify(_ jws: [UInt8], now: Date, as format: SignedDataFormat?) -> SignedDataVerification {
        var result = SignedDataVerification()
        do {
            try verify(jws, now: now, as: format, into: &result)
        } catch {
            result.failure = error
        }
        return result
    }

    private func verify(
        _ bytes: [UInt8], now: Date, as format: SignedDataFormat?, into result: inout SignedDataVerification
    ) throws(SignedDataFailure) {
        let jws = try CompactJWS(bytes, headers: headers)
        guard jws.algorithm == "ES256" else { throw .unsupportedAlgorithm(String(jws.algorithm.prefix(20))) }
        guard let x5c = jws.certificateChain else { throw .missingCertificateChain }
        guard x5c.count == 3 else { throw .chainLength(x5c.count) }
        let payload: SignedPayload
        do throws(SignedPayloadError) {
            if let format {
                payload = try SignedPayload.decode(jws.payload, as: format)
            } else {
                payload = try SignedPayload.decode(jws.payload)
            }
        } catch {
            result.chain = CertificateChainVerifier.presented(x5c)
            switch error {
            case .duplicateKey: throw .duplicatePayloadKey
            case .signedDateNotANumber(let field): throw .signedDateNotANumber(field: field)
            case .notJSON, .notAnObject: throw .undecodablePayload("\(error)")
            }
        }
        result.payload = payload
        let instant = payload.signedDate ?? now
        result.checkedAt = instant

        let chain: VerifiedChain
        if let known = jws.verifiedChain.chain(covering: instant) {
            chain = known
        } else {
            do {
                chain = try chains.verify(x5c, at: instant)
            } catch {
                result.chain = CertificateChainVerifier.presented(x5c)
                // Another signer's chain is told from altered data only by the signature itself.
                if case .untrustedRoot = error, !Self.signatureVerifies(jws, leaf: x5c[0]) {
                    throw .badSignature("ES256 signature does not match the signed data")
                }
                throw error
            }
            jws.verifiedChain.remember(chain)
        }
        result.chain = chain.certificates.map(CertificateSummary.init)
        guard jws.signature.count == 64 else {
            throw .badSignature("\(jws.signature.count) bytes, not the 64-byte R||S of ES256")
        }
        let verified = jws.signingInput.withUnsafeBytes { chain.leafKey.verify(signature: jws.signature, of: $0) }
        guard verified else { throw .badSignature("ES256 signature does not match the signed data") }

        // Every nested item is verified, so `inspect` can show each, even when the outer data fails an
        // application check; the outer failure is the reason, else the first nested one.
        var nestedFailure: SignedDataFailure?
        if case .notification(let notification) = payload {
            for (format, nested) in notification.nestedSignedData {
                let field = Self.nestedField(format)
                let verification = verify(Array(nested.utf8), now: now, as: format)
                result.nested.append((field, verification))
                if nestedFailure == nil, let failure = verification.failure {
                    nestedFailure = .nested(field: field, failure: .init(failure))
                }
            }
        }
        try checkApplication(payload)
        if let nestedFailure { throw nestedFailure }
    }

    /// Whether `jws`'s signature verifies under the key of the leaf certificate `leaf` (x5c text).
    private static func signatureVerifies(_ jws: CompactJWS, leaf: String) -> Bool {
        guard jws.signature.count == 64, let der = try? LocalReceiptBase64.decode(leaf.utf8),
            let certificate = try? X509Certificate(der: der), let key = ES256Key(publicKeyOf: certificate)
        else { return false }
        return jws.signingInput.withUnsafeBytes { key.verify(signature: jws.signature, of: $0) }
    }

    /// Apple's name for the notification field that nests data of `format`.
    private static func nestedField(_ format: SignedDataFormat) -> String {
        switch format {
        case .transaction: "signedTransactionInfo"
        case .renewalInfo: "signedRenewalInfo"
        case .appTransaction: "signedAppTransactionInfo"
        case .notification: "signedPayload"
        }
    }

    /// The checks after the signature: where the data may be used.
    private func checkApplication(_ payload: SignedPayload) throws(SignedDataFailure) {
        let signedEnvironment = payload.environment
        if let signedEnvironment, signedEnvironment.appStoreEnvironment == nil,
            signedEnvironment == .xcode || signedEnvironment == .localTesting
        {
            throw .testEnvironment(signedEnvironment.rawValue)
        }
        if !acceptedBundleIDs.isEmpty, let bundleID = payload.bundleID, !acceptedBundleIDs.contains(bundleID) {
            throw .bundleNotAccepted(bundleID: bundleID, accepted: acceptedBundleIDs.sorted())
        }
        if let environment, let signedEnvironment, signedEnvironment.appStoreEnvironment != environment {
            throw .wrongEnvironment(signed: signedEnvironment.rawValue, served: environment.rawValue)
        }
    }
}

/// What `SignedDataVerifier.verify` found: the payload (believed only when `failure` is nil), the
/// instant the certificates were checked at, the chain, and a notification's nested data.
public struct SignedDataVerification: Sendable {
    /// The decoded payload; present whenever it decodes, even when verification failed.
    public var payload: SignedPayload?
    /// The payload's `signedDate`, or the current time when it has none.
    public var checkedAt: Date?
    /// Leaf, intermediate and root when the chain verified; else the `x5c` certificates that decode.
    public var chain: [CertificateSummary] = []
    /// Why the data is not believed; nil when it is.
    public var failure: SignedDataFailure?
    /// A notification's nested signed data, by field name, each verified in place, in the order of
    /// `SignedNotification.nestedSignedData`.
    public var nested: [(field: String, verification: SignedDataVerification)] = []

    public var isValid: Bool { failure == nil }

    public init(
        payload: SignedPayload? = nil, checkedAt: Date? = nil, chain: [CertificateSummary] = [],
        failure: SignedDataFailure? = nil
    ) {
        self.payload = payload
        self.checkedAt = checkedAt
        self.chain = chain
        self.failure = failure
    }
}

/// A trust anchor file that cannot be used: exit 78 (configuration).
public struct SignedDataConfigurationError: Error, CustomStringConvertible {
    public let path: String
    public let problem: String

    public var description: String {
        "APPLE_ROOT_CERTIFICATES: \(path) \(problem); give DER or PEM root certificate files, or unset it to trust Apple Root CA - G3"
    }
}
