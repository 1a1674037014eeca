import CLibCrypto

/// PKCS#8 PEM private keys (`-----BEGIN PRIVATE KEY-----`) in and out of OpenSSL, for every key type
/// the project mints or reads (`ES256Key`, `RSASigningKey`): each checks the key's type itself.
enum PKCS8PEM {
    /// The `EVP_PKEY` the PEM holds, owned by the caller; nil when it holds none.
    static func privateKey(_ pem: [UInt8]) -> OpaquePointer? {
        OpenSSLError.clear()
        let key: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        if key == nil { OpenSSLError.clear() }
        return key
    }

    /// The private key `key` as PKCS#8 PEM, unencrypted; nil when OpenSSL fails.
    static func text(of key: OpaquePointer) -> [UInt8]? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let length = recon_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
