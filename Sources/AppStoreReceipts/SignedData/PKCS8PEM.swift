import CLibCrypto

/// PKCS#8 PEM private keys (`-----BEGIN PRIVATE KEY-----`) in and out of OpenSSL, for every key type
/// the project mints or reads (`ES256Key`, `RSASigningKey`): each checks the key's type itself.
enum PKCS8PEM {
    /// Why a PEM yielded no key.
    enum Failure: Error, Equatable {
        /// The key is passphrase-protected (`ENCRYPTED PRIVATE KEY`, or a legacy PEM with
        /// `Proc-Type: 4,ENCRYPTED`): the job runs unattended and never asks for a passphrase.
        case encrypted
        /// No private key OpenSSL can read.
        case unreadable
    }

    /// The `EVP_PKEY` the PEM holds, owned by the caller; nil when it holds none (or only an encrypted one).
    static func privateKey(_ pem: [UInt8]) -> OpaquePointer? {
        try? read(pem).get()
    }

    /// The `EVP_PKEY` the PEM holds, owned by the caller, or why there is none.
    ///
    /// OpenSSL asks its passphrase callback for an encrypted key, and its default callback prompts on
    /// the terminal: a nightly job would hang there. The callback given here refuses and notes that it
    /// was asked, which is how an encrypted key is told from an unreadable one.
    static func read(_ pem: [UInt8]) -> Result<OpaquePointer, Failure> {
        OpenSSLError.clear()
        var asked: Int32 = 0
        let key: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return withUnsafeMutablePointer(to: &asked) { flag in
                PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, flag)
            }
        }
        guard let key else {
            OpenSSLError.clear()
            return .failure(asked != 0 || looksEncrypted(pem) ? .encrypted : .unreadable)
        }
        return .success(key)
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

    /// A passphrase callback for every PEM read (`pem_password_cb`): gives no passphrase, so OpenSSL
    /// fails at once instead of prompting; sets the `Int32` that `userdata` points at, when given.
    static let refusePassphrase:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
            _, _, _, userdata in
            userdata?.storeBytes(of: 1, as: Int32.self)
            return -1
        }

    /// The markers of a passphrase-protected PEM, for keys OpenSSL refuses before it asks.
    private static func looksEncrypted(_ pem: [UInt8]) -> Bool {
        let text = String(decoding: pem.prefix(4096), as: UTF8.self)
        return text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")
    }
}
