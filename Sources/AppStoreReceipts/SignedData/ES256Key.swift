import CLibCrypto

/// A P-256 key for ES256 (ECDSA with SHA-256), as JWS and Apple's API tokens use it: signatures
/// travel as the raw 64-byte R‖S (RFC 7518 §3.4), while OpenSSL signs and verifies DER, so every
/// signature is converted at this boundary.
///
/// Unchecked `Sendable`: the `EVP_PKEY` is never changed after it is made, and each signature or
/// check uses its own `EVP_MD_CTX`.
package final class ES256Key: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Whether the private half is present (a generated or loaded signing key).
    package let canSign: Bool
    /// Contexts ready to verify with this key (`ES256Key+Verification`).
    let verificationContexts = VerificationContexts()

    private init(owning pointer: OpaquePointer, canSign: Bool) {
        self.pointer = pointer
        self.canSign = canSign
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The public key of `certificate`; nil unless it is an EC key on P-256.
    package convenience init?(publicKeyOf certificate: X509Certificate) {
        guard let key = X509_get0_pubkey(certificate.pointer), Self.isP256(key), EVP_PKEY_up_ref(key) == 1 else {
            OpenSSLError.clear()
            return nil
        }
        self.init(owning: key, canSign: false)
    }

    /// A new random P-256 key pair.
    package static func generate() -> ES256Key? {
        OpenSSLError.clear()
        guard let key = recon_ec_generate("P-256") else { return nil }
        return ES256Key(owning: key, canSign: true)
    }

    /// A PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`, App Store Connect's `.p8`); nil
    /// unless it is a P-256 key.
    package static func privateKey(pem: [UInt8]) -> ES256Key? {
        try? readPrivateKey(pem: pem)
    }

    /// Why a PEM gave no P-256 private key.
    package enum ReadFailure: Error, Equatable {
        /// Passphrase-protected: the job never asks for a passphrase (nor lets OpenSSL prompt for one).
        case encrypted
        /// Not a private key at all, or one of another type or curve.
        case notP256
    }

    /// A PKCS#8 PEM P-256 private key, or why the PEM holds none.
    package static func readPrivateKey(pem: [UInt8]) throws(ReadFailure) -> ES256Key {
        switch PKCS8PEM.read(pem) {
        case .failure(.encrypted): throw .encrypted
        case .failure(.unreadable): throw .notP256
        case .success(let key):
            guard isP256(key) else {
                EVP_PKEY_free(key)
                throw .notP256
            }
            return ES256Key(owning: key, canSign: true)
        }
    }

    /// The private key as PKCS#8 PEM (the `.p8` format); nil for a public key.
    package var pkcs8PEM: [UInt8]? {
        guard canSign else { return nil }
        return PKCS8PEM.text(of: pointer)
    }

    /// Whether `signature` (64-byte R‖S) is this key's ES256 signature of `message`. Any other
    /// length is refused before OpenSSL sees it: a DER signature is not a JWS signature.
    package func verify(signature: some Collection<UInt8>, of message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64, let der = Self.derSignature(rs: signature) else { return false }
        return verifyDER(der, of: message)
    }

    /// The ES256 signature of `message` as 64-byte R‖S; nil without a private key.
    package func sign(_ message: some Collection<UInt8>) -> [UInt8]? {
        guard canSign, let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        OpenSSLError.clear()
        let bytes = Array(message)
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return nil }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, bytes, bytes.count) == 1 else { return nil }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, bytes, bytes.count) == 1 else { return nil }
        return Self.rawSignature(der: Array(der.prefix(length)))
    }

    private static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
        var name = [CChar](repeating: 0, count: 32)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
    }

    /// A DER signature as R‖S, each left-padded to 32 bytes (about one signature in 128 has a
    /// short R or S).
    private static func rawSignature(der: [UInt8]) -> [UInt8]? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        return written ? raw : nil
    }
}
