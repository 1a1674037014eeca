import CLibCrypto
import Synchronization

/// ES256 verification without OpenSSL 3's per-call setup: `EVP_DigestVerifyInit` fetched the
/// signature and digest implementations by name and built a key context for every signature, and a
/// run checks a few per user. Here SHA-256 is fetched once, each key keeps a few contexts
/// initialised for verifying (one per thread using it at a time), and the 64-byte R‖S is turned into
/// DER in Swift rather than through `ECDSA_SIG` and two `BIGNUM`s.
extension ES256Key {
    /// Whether `signature` (DER) verifies over the SHA-256 of `message`.
    func verifyDER(_ der: [UInt8], of message: UnsafeRawBufferPointer) -> Bool {
        guard let sha256 = SHA256Digest.shared.md else { return false }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_Digest(message.baseAddress, message.count, &digest, &length, sha256, nil) == 1, length == 32 else {
            OpenSSLError.clear()
            return false
        }
        guard let context = verificationContexts.take(for: pointer) else { return false }
        defer { verificationContexts.give(context) }
        let result = EVP_PKEY_verify(context.pointer, der, der.count, digest, 32)
        OpenSSLError.clear()
        return result == 1
    }

    /// R‖S (32 bytes each, big-endian) as the DER `ECDSA-Sig-Value`: SEQUENCE of two minimal INTEGERs,
    /// written into one buffer (at most 72 bytes) rather than assembled from arrays per integer.
    static func derSignature(rs: some Collection<UInt8>) -> [UInt8]? {
        guard rs.count == 64 else { return nil }
        let bytes = Array(rs)
        var der: [UInt8] = []
        der.reserveCapacity(72)
        der.append(0x30)
        der.append(0)
        func integer(from start: Int) {
            let end = start + 32
            var first = start
            while first < end - 1, bytes[first] == 0 { first += 1 }
            let padded = bytes[first] & 0x80 != 0
            der.append(0x02)
            der.append(UInt8(end - first + (padded ? 1 : 0)))
            if padded { der.append(0) }
            der.append(contentsOf: bytes[first..<end])
        }
        integer(from: 0)
        integer(from: 32)
        der[1] = UInt8(der.count - 2)
        return der
    }
}

/// SHA-256 fetched from the default provider once for the process.
private final class SHA256Digest: @unchecked Sendable {
    // Unchecked: the EVP_MD is immutable once fetched and OpenSSL lets threads share it.
    static let shared = SHA256Digest()
    let md: OpaquePointer?
    private init() { md = EVP_MD_fetch(nil, "SHA256", nil) }
}

/// An `EVP_PKEY_CTX` initialised for verification with one key; used by one thread at a time.
final class VerificationContext: @unchecked Sendable {
    // Unchecked: handed out by `VerificationContexts` to one thread at a time.
    let pointer: OpaquePointer
    init?(key: OpaquePointer) {
        OpenSSLError.clear()
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return nil }
        guard EVP_PKEY_verify_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            OpenSSLError.clear()
            return nil
        }
        pointer = context
    }
    deinit { EVP_PKEY_CTX_free(pointer) }
}

/// A key's idle verification contexts: at most a few are kept (one per worker thread at a time).
final class VerificationContexts: Sendable {
    private let idle = Mutex<[VerificationContext]>([])
    private let capacity = 8

    func take(for key: OpaquePointer) -> VerificationContext? {
        idle.withLock { $0.popLast() } ?? VerificationContext(key: key)
    }

    func give(_ context: VerificationContext) {
        idle.withLock { idle in
            if idle.count < capacity { idle.append(context) }
        }
    }
}
