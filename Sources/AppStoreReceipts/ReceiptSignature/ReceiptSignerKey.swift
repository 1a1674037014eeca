import CLibCrypto
import Synchronization

/// The public key of a receipt's signing certificate (RSA, for Apple's and minted chains alike),
/// verifying PKCS #1 v1.5 signatures over a precomputed SHA-1 or SHA-256 digest.
///
/// OpenSSL 3 fetches the signature implementation by name and builds a key context on every
/// `EVP_DigestVerifyInit`; a run checks one receipt after another with the same few keys, so each
/// key keeps, per digest, a few contexts initialised for verifying (one per thread using it at a time).
///
/// Unchecked `Sendable`: the `EVP_PKEY` is never changed after it is made, and each context is used
/// by one thread at a time (`ContextPool`).
final class ReceiptSignerKey: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// OpenSSL's key type (`EVP_PKEY_RSA`, `EVP_PKEY_EC`, …).
    let type: Int32
    private let pools: [ContextPool]

    /// The public key of `certificate`, whatever its type (the chain and the algorithm decide
    /// whether it may sign a receipt).
    init?(publicKeyOf certificate: X509Certificate) {
        OpenSSLError.clear()
        guard let key = X509_get0_pubkey(certificate.pointer), EVP_PKEY_up_ref(key) == 1 else {
            OpenSSLError.clear()
            return nil
        }
        pointer = key
        type = EVP_PKEY_get_base_id(key)
        pools = ReceiptDigest.allCases.map { ContextPool(digest: $0) }
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Whether `signature` verifies over `digestValue`, the `digest` of the signed bytes.
    func verify(signature: ArraySlice<UInt8>, digestValue: [UInt8], _ digest: ReceiptDigest) -> Bool {
        let pool = pools[digest == .sha1 ? 0 : 1]
        guard let context = pool.take(key: pointer) else { return false }
        defer { pool.give(context) }
        let result = signature.withUnsafeBufferPointer { signature in
            EVP_PKEY_verify(context.pointer, signature.baseAddress, signature.count, digestValue, digestValue.count)
        }
        OpenSSLError.clear()
        return result == 1
    }

    /// Idle contexts for one digest: at most a few are kept.
    private final class ContextPool: Sendable {
        let digest: ReceiptDigest
        private let idle = Mutex<[Context]>([])

        init(digest: ReceiptDigest) { self.digest = digest }

        func take(key: OpaquePointer) -> Context? {
            idle.withLock { $0.popLast() } ?? Context(key: key, digest: digest)
        }

        func give(_ context: Context) {
            idle.withLock { idle in
                if idle.count < 8 { idle.append(context) }
            }
        }
    }

    /// An `EVP_PKEY_CTX` ready to verify with one key over one digest (for RSA, the digest is what
    /// the PKCS #1 `DigestInfo` names).
    private final class Context: @unchecked Sendable {
        // Unchecked: handed out by `ContextPool` to one thread at a time.
        let pointer: OpaquePointer

        init?(key: OpaquePointer, digest: ReceiptDigest) {
            OpenSSLError.clear()
            guard let md = digest.md, let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return nil }
            guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_signature_md(context, md) == 1 else {
                EVP_PKEY_CTX_free(context)
                OpenSSLError.clear()
                return nil
            }
            pointer = context
        }

        deinit { EVP_PKEY_CTX_free(pointer) }
    }
}
