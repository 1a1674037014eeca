import CLibCrypto

/// The RSA private key of a minted receipt-signing leaf (`SigningChain.receiptLeafKey`): Apple signs
/// app receipts with an RSA-2048 leaf, PKCS #1 v1.5, so the simulator and the tests do too, and a run
/// pays for the same verification on their receipts as on Apple's.
///
/// PKCS #1 v1.5 signatures are a function of the key and the digest alone, so a receipt signed twice
/// is the same bytes (the simulator rebuilds a receipt and compares bytes).
///
/// Unchecked `Sendable`: the `EVP_PKEY` is never changed after it is made, and each signature uses
/// its own `EVP_PKEY_CTX`.
package final class RSASigningKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Apple's receipt-signing leaves hold 2048-bit keys.
    package static let bits: UInt32 = 2048

    private init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// A new random RSA-2048 key pair.
    package static func generate() -> RSASigningKey? {
        OpenSSLError.clear()
        guard let key = recon_rsa_generate(bits) else {
            OpenSSLError.clear()
            return nil
        }
        return RSASigningKey(owning: key)
    }

    /// A PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`); nil unless it is an RSA key.
    package static func privateKey(pem: [UInt8]) -> RSASigningKey? {
        guard let key = PKCS8PEM.privateKey(pem) else { return nil }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            return nil
        }
        return RSASigningKey(owning: key)
    }

    /// The private key as PKCS#8 PEM.
    package var pkcs8PEM: [UInt8]? {
        PKCS8PEM.text(of: pointer)
    }

    /// The length of every signature this key makes (the modulus's, 256 bytes for RSA-2048).
    var signatureSize: Int { Int(EVP_PKEY_get_size(pointer)) }

    /// The PKCS #1 v1.5 signature of `digestValue`, the `digest` of the signed bytes (the
    /// `DigestInfo` names `digest`); nil only when OpenSSL fails.
    func sign(digestValue: [UInt8], _ digest: ReceiptDigest) -> [UInt8]? {
        OpenSSLError.clear()
        defer { OpenSSLError.clear() }
        guard let md = digest.md, let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_sign_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, md) == 1
        else { return nil }
        var length = 0
        guard EVP_PKEY_sign(context, nil, &length, digestValue, digestValue.count) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &signature, &length, digestValue, digestValue.count) == 1 else { return nil }
        return Array(signature.prefix(length))
    }
}
