import Foundation

/// A throwaway root → intermediate → leaves with Apple's OIDs, and the leaves' keys: what the
/// simulator signs its StoreKit 2 data and app receipts with, and what tests mint to sign their own.
/// A run trusts it only when pointed at its root (`APPLE_ROOT_CERTIFICATES`); production never is.
///
/// Two leaves under the one intermediate, as Apple has: a P-256 leaf for JWS (ES256), and an RSA-2048
/// leaf for app receipts (PKCS #7, `ReceiptSigner`), so that a simulated receipt costs a run the same
/// RSA verification a real one does. Both carry the receipt-signing OID, as Apple's both do.
package struct SigningChain: Sendable {
    package let root: X509Certificate
    package let intermediate: X509Certificate
    /// The JWS leaf.
    package let leaf: X509Certificate
    package let leafKey: ES256Key
    /// The app receipts' leaf.
    package let receiptLeaf: X509Certificate
    package let receiptLeafKey: RSASigningKey

    /// The file names `write(to:)` uses (CONTRACT §9 names `apple-root.der`).
    package static let rootFile = "apple-root.der"
    package static let intermediateFile = "apple-intermediate.der"
    package static let leafFile = "apple-leaf.der"
    package static let leafKeyFile = "apple-leaf-key.p8"
    package static let receiptLeafFile = "apple-receipt-leaf.der"
    package static let receiptLeafKeyFile = "apple-receipt-leaf-key.p8"

    /// Every file `write(to:)` leaves.
    package static let files = [
        rootFile, intermediateFile, leafFile, leafKeyFile, receiptLeafFile, receiptLeafKeyFile,
    ]

    package init(
        root: X509Certificate, intermediate: X509Certificate, leaf: X509Certificate, leafKey: ES256Key,
        receiptLeaf: X509Certificate, receiptLeafKey: RSASigningKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
        self.receiptLeaf = receiptLeaf
        self.receiptLeafKey = receiptLeafKey
    }

    /// A new chain valid from `notBefore` to `notAfter`; the leaves' validity may be narrower (a
    /// rotated or expired leaf), and the marker OIDs may be changed to make a chain Apple's rules
    /// reject (`leafValidity` and `leafOID` apply to both leaves).
    package static func mint(
        name: String = "receipt-recon simulator", notBefore: Date, notAfter: Date,
        leafValidity: ClosedRange<Date>? = nil,
        leafOID: String? = TrustChainVerifier.leafOID,
        intermediateOID: String? = TrustChainVerifier.intermediateOID
    ) throws(CertificateMinter.MintingError) -> SigningChain {
        guard let rootKey = ES256Key.generate(), let intermediateKey = ES256Key.generate(),
            let leafKey = ES256Key.generate()
        else { throw .openSSL("cannot generate P-256 keys") }
        guard let receiptLeafKey = RSASigningKey.generate() else { throw .openSSL("cannot generate an RSA key") }
        let root = try CertificateMinter.certificate(
            .init(commonName: "\(name) Root CA", isAuthority: true, notBefore: notBefore, notAfter: notAfter),
            key: rootKey, issuer: nil)
        let intermediate = try CertificateMinter.certificate(
            .init(
                commonName: "\(name) WWDR Intermediate", isAuthority: true, notBefore: notBefore, notAfter: notAfter,
                markerOID: intermediateOID, serial: 2),
            key: intermediateKey, issuer: (root, rootKey))
        func leafProfile(_ commonName: String, serial: Int) -> CertificateMinter.Profile {
            .init(
                commonName: commonName, isAuthority: false, notBefore: leafValidity?.lowerBound ?? notBefore,
                notAfter: leafValidity?.upperBound ?? notAfter, markerOID: leafOID, serial: serial)
        }
        let leaf = try CertificateMinter.certificate(
            leafProfile("\(name) Receipt Signing", serial: 3), key: leafKey, issuer: (intermediate, intermediateKey))
        let receiptLeaf = try CertificateMinter.certificate(
            leafProfile("\(name) RSA Receipt Signing", serial: 4), key: receiptLeafKey,
            issuer: (intermediate, intermediateKey))
        return SigningChain(
            root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey, receiptLeaf: receiptLeaf,
            receiptLeafKey: receiptLeafKey)
    }

    /// A compact JWS of `payload` (JSON bytes): header `{"alg":"ES256","x5c":[leaf, intermediate,
    /// root]}`, signed with the leaf's key.
    package func sign(payload: [UInt8]) -> String {
        let x5c = [leaf, intermediate, root].map { "\"" + Data($0.der).base64EncodedString() + "\"" }
        let header = "{\"alg\":\"ES256\",\"x5c\":[" + x5c.joined(separator: ",") + "]}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
        // A generated key always signs; an empty signature would only make the JWS fail verification.
        let signature = leafKey.sign(Array(signingInput.utf8)) ?? []
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Writes the chain and the leaves' keys (mode 0600) into `directory`, which must exist.
    package func write(to directory: URL) throws {
        let files: [(String, [UInt8])] = [
            (Self.rootFile, root.der), (Self.intermediateFile, intermediate.der), (Self.leafFile, leaf.der),
            (Self.leafKeyFile, leafKey.pkcs8PEM ?? []), (Self.receiptLeafFile, receiptLeaf.der),
            (Self.receiptLeafKeyFile, receiptLeafKey.pkcs8PEM ?? []),
        ]
        for (name, bytes) in files {
            // The key is created readable by its owner only, never briefly world-readable.
            let url = directory.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: url)
            let mode = name == Self.leafKeyFile || name == Self.receiptLeafKeyFile ? 0o600 : 0o644
            guard
                FileManager.default.createFile(
                    atPath: url.path, contents: Data(bytes), attributes: [.posixPermissions: mode])
            else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        }
    }

    /// The chain `write(to:)` left in `directory`.
    package static func read(from directory: URL) throws -> SigningChain {
        func bytes(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        guard let key = ES256Key.privateKey(pem: try bytes(leafKeyFile)) else {
            throw CertificateMinter.MintingError.openSSL("\(leafKeyFile) is not a P-256 private key")
        }
        guard let receiptKey = RSASigningKey.privateKey(pem: try bytes(receiptLeafKeyFile)) else {
            throw CertificateMinter.MintingError.openSSL("\(receiptLeafKeyFile) is not an RSA private key")
        }
        return SigningChain(
            root: try X509Certificate(der: try bytes(rootFile)),
            intermediate: try X509Certificate(der: try bytes(intermediateFile)),
            leaf: try X509Certificate(der: try bytes(leafFile)), leafKey: key,
            receiptLeaf: try X509Certificate(der: try bytes(receiptLeafFile)), receiptLeafKey: receiptKey)
    }
}
